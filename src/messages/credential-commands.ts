/**
 * Credentials in command lines and configuration written with blanks: a client's password
 * flag, `.pgpass` and `.netrc` lines, an ftp `user` line, an htpasswd entry, a .NET
 * attribute pair, a service's token in a URL path.
 */
import { isCredentialKey } from './credential-keys.js'
import { isQuote, NOT_A_VALUE, regexSpans, type Span } from './credential-text.js'

/**
 * Short flags that take a password, by command (`mysql -pX`, `sshpass -p X`, `redis-cli -a X`,
 * `ldapsearch -w X`, `sqlcmd -P X`, `smbclient -U user%X`, `lftp -u user,X`, `7z -pX`): a
 * flag means a password only after its own command, on the same line or pipeline stage.
 */
const COMMAND_FLAGS: readonly [RegExp, RegExp][] = [
  [/(?:mysql\w*|mariadb(?:-\w+)?)\b/, /(?<=[ \t])-p([^\s-]\S*)/g],
  [/sshpass\b/, /(?<=[ \t])-p[ \t]*(\S+)/g],
  // A registry login's `-p` (`docker run -p 8080:80` publishes a port).
  [
    /(?:docker|podman|nerdctl|buildah|skopeo|helm|oras|crane)\b[^\n]*?\blogin\b/,
    /(?<=[ \t])-p[ \t]+([^\s-]\S*)/g,
  ],
  [/(?:\baz|twine|mongo\w*|cqlsh)\b/, /(?<=[ \t])-p[ \t]+([^\s-]\S*)/g],
  [/mosquitto_\w+\b/, /(?<=[ \t])-P[ \t]+(\S+)/g],
  [/influx\b/, /(?<=[ \t])-password[ \t]+(\S+)/g],
  // `sqlplus user/password@db`.
  [/sqlplus\b/, /(?<=[ \t])[\w.$#-]+\/([^\s@/]+)(?=@)/g],
  [/redis-cli\b/, /(?<=[ \t])-a[ \t]+(\S+)/g],
  [/ldap\w+\b/, /(?<=[ \t])-w[ \t]+(\S+)/g],
  [/(?:sqlcmd|\bbcp|osql|isql|ipmitool)\b/, /(?<=[ \t])-P[ \t]*(\S+)/g],
  [/(?:smbclient|rpcclient|smbmap|\bnet)\b/, /(?<=[ \t])-U[ \t]+[^\s%]+%(\S+)/g],
  [/lftp\b/, /(?<=[ \t])-u[ \t]+[^\s,]+,(\S+)/g],
  [/\b(?:7z|7za|rar|unrar)\b/, /(?<=[ \t])-p([^\s-]\S*)/g],
  [/\b(?:zip|unzip)\b/, /(?<=[ \t])-P[ \t]+(\S+)/g],
  [/ssh-keygen\b/, /(?<=[ \t])-[NP][ \t]+("[^"]*"|'[^']*'|\S+)/g],
  [/snmp\w+\b/, /(?<=[ \t])-[AX][ \t]+(\S+)/g],
  [/openssl\b/, /(?<=[ \t])-(?:passin|passout|pass|k)[ \t]+(?:pass:)?(\S+)/g],
  [/vault[ \t]+login\b/, /\blogin[ \t]+(?:-\S+[ \t]+)*([^\s=-]\S{7,})/g],
  [/wpa_passphrase\b/, /\bwpa_passphrase[ \t]+(?:"[^"]*"|\S+)[ \t]+("[^"]*"|\S+)/g],
  [/nmcli\b/, /\b(?:password|wifi-sec\.psk|psk)[ \t]+("[^"]*"|\S+)/g],
]

/** A pipeline stage: the text between line ends, `|`, `;` and `&&`. */
const STAGE = /[^\n|;&]+/g

/** `user name password` in an ftp session's script (a heredoc after `ftp -n`). */
const FTP_USER = /(?:^|\n|\\n)[ \t]*user[ \t]+\S+[ \t]+([^\s\\]+)/g

/** A `.pgpass` line: `host:port:database:user:password`. */
const PGPASS = /(?:^|\n|\\n)[^\s:]+:(?:\d{1,5}|\*):[^\s:]+:[^\s:]+:([^\s\\]+)(?=$|\r?\n|\\n)/g

export function commandSpans(text: string, out: Span[]): void {
  if (/\bftp\b/.test(text)) regexSpans(FTP_USER, text, out)
  if (text.includes(':')) regexSpans(PGPASS, text, out)
  if (!/[ \t]-\w|login|wpa_|sqlplus|nmcli/.test(text)) return
  for (const stage of text.matchAll(STAGE)) {
    const line = stage[0]
    if (line.length < 6) continue
    for (const [command, flag] of COMMAND_FLAGS) {
      const c = command.exec(line)
      if (!c) continue
      const from = c.index + c[0].length
      for (const m of line.slice(from).matchAll(flag)) {
        let v = m[1] as string
        let at = (stage.index ?? 0) + from + (m.index ?? 0) + m[0].length - v.length
        if (isQuote(v[0]) && v.length > 1) {
          v = v.slice(1, -1)
          at++
        }
        if (v !== '' && !NOT_A_VALUE.test(v)) out.push([at, at + v.length])
      }
    }
    htpasswdSpans(line, stage.index ?? 0, out)
  }
}

/** `htpasswd -b file user password`, `htpasswd -nb user password`. */
function htpasswdSpans(line: string, offset: number, out: Span[]): void {
  const c = /\bhtpasswd\b/.exec(line)
  if (!c) return
  let flags = ''
  const words: [string, number][] = []
  for (const w of line.slice(c.index + c[0].length).matchAll(/\S+/g)) {
    if (w[0].startsWith('-')) flags += w[0].slice(1)
    else words.push([w[0], c.index + c[0].length + (w.index ?? 0)])
  }
  if (!flags.includes('b')) return
  const word = words[flags.includes('n') ? 1 : 2]
  if (word) out.push([offset + word[1], offset + word[1] + word[0].length])
}

/** `<add key="ClientSecret" value="x"/>` (.NET appSettings), either order, either quote. */
const ATTRIBUTE_PAIR =
  /\b(?:key|name)[ \t]*=[ \t]*(\\*["'])([^"'\\\n]{1,100})\1[ \t\r\n]+value[ \t]*=[ \t]*(\\*["'])([^"'\\\n]*)\3|\bvalue[ \t]*=[ \t]*(\\*["'])([^"'\\\n]*)\5[ \t\r\n]+(?:key|name)[ \t]*=[ \t]*(\\*["'])([^"'\\\n]{1,100})\7/g

export function attributeSpans(text: string, out: Span[]): void {
  if (!text.includes('value')) return
  for (const m of text.matchAll(ATTRIBUTE_PAIR)) {
    const name = m[2] ?? m[8]
    const value = m[4] ?? m[6]
    if (name === undefined || value === undefined || value === '' || !isCredentialKey(name))
      continue
    if (NOT_A_VALUE.test(value)) continue
    const at =
      (m.index ?? 0) +
      (m[4] !== undefined
        ? m[0].length - (m[3] as string).length - value.length
        : m[0].indexOf(value, m[0].indexOf('=') + 1))
    out.push([at, at + value.length])
  }
}

/**
 * Secrets carried in a URL's path or by a service's own form: Discord webhooks, Telegram bot
 * tokens, Azure AD client secrets.
 */
const URL_TOKENS =
  /\bdiscord(?:app)?\.com\/api\/webhooks\/\d+\/([\w-]{20,})|\bapi\.telegram\.org\/(?:file\/)?bot(\d{5,}:[\w-]{20,})|(?<![\w~.-])([A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34})(?![\w~.-])/g

export function urlTokenSpans(text: string, out: Span[]): void {
  if (!text.includes('webhooks') && !text.includes('telegram') && !text.includes('Q~')) return
  for (const m of text.matchAll(URL_TOKENS)) {
    const v = (m[1] ?? m[2] ?? m[3]) as string
    const at = (m.index ?? 0) + m[0].length - v.length
    out.push([at, at + v.length])
  }
}
