/**
 * The credential filter's prefilter: what each of its scans needs to find anything, and one
 * pass over a text saying whether the scans must read it. Most texts hold no credential:
 * the scans run on few.
 */
import { credentialKeyTriggers } from './credential-keys.js'
import { HIDING, INVISIBLE_CHARS } from './credential-text.js'
import { LOOSE_TOKENS, tokenTriggers } from './credential-tokens.js'

/**
 * A trigger: a name (for tests), the literals (any case) one of which a scan needs, and when
 * a literal alone is not enough (it is in ordinary words), a regex confirming it.
 */
export type Trigger = readonly [name: string, literals: readonly string[], confirm?: string]

/**
 * What each scan needs to find anything: gitleaks' literals, the loose token forms, the
 * schemes, `curl -u`, a URL's userinfo, an armor line, a `.pgpass` port, a command's password
 * flag, the URL tokens, and the words of a credential's name (which the key/value,
 * name/value pair and attribute scans all need). A confirming regex is read
 * case-insensitively, so each is looser than the scan it stands for. A long base64 run (the
 * blob rule) has no literal: the prefilter looks for it apart.
 */
export function credentialTriggers(): readonly Trigger[] {
  const flags = ['p', 'a', 'u', 'w', 'n', 'k', 'x'].flatMap((f) => [` -${f}`, `\t-${f}`])
  return [
    ...tokenTriggers().map(([l, c], k) => [`token rule ${k}`, l, c] as const),
    [
      'loose tokens',
      'sk- sk_live_ sk_test_ rk_live_ rk_test_ ghp_ gho_ ghu_ ghs_ ghr_ xoxa- xoxb- xoxp- xoxr- xoxs- akia aiza eyj tskey- vcp_ vci_ vca_ vcr_ vck_ shpss_ shpat_ shpca_ shppa_ cfat_ cfut_ cfk_ dapi gsk_ lin_api_ lin_oauth_ hooks.slack.com/'.split(
        ' ',
      ),
      LOOSE_TOKENS.source,
    ],
    ['scheme token', ['bearer', 'basic'], String.raw`\b(?:bearer|basic)[ \t]+[\w.~+/=-]{8}`],
    ['curl user', ['-u', '--user'], String.raw`(?<![\w-])(?:-u|--user)(?:=|[ \t])`],
    ['userinfo', ['://'], ':\\/\\/[^/?#<>"\'`\\\\ \\t\\n\\r]*@'],
    ['armor', ['-----begin ']],
    ['ftp user', ['ftp'], String.raw`\bftp\b`],
    [
      'pgpass',
      [':*', ...'0123456789'.split('').map((d) => `:${d}`)],
      String.raw`:(?:\d{1,5}|\*):[^\s:]+:[^\s:]+:`,
    ],
    ['command flag', [...flags, 'sqlplus', 'wpa_passphrase', 'nmcli', 'htpasswd']],
    ['vault login', ['vault'], String.raw`vault[ \t]+login`],
    ['url token', ['discord', 'api.telegram.org/']],
    ['azure secret', ['q~'], String.raw`\dq~`],
    // A text hiding text behind JSON's escapes or invisible characters is read whole (read
    // unescaped, it could hold what no trigger matches as written).
    ['escape', ['\\u', '\\/'], HIDING.source],
    ['invisible', [...INVISIBLE_CHARS]],
    ...credentialKeyTriggers().map(([l, c], k) => [`key words ${k}`, l, c] as const),
  ]
}

/** A prefilter: whether a text may hold a credential. */
export type Prefilter = (text: string) => boolean

/** An ASCII code unit in lower case (what a case-insensitive regex compares). */
const lower = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c)

/**
 * The prefilter of `triggers`: a run of 64 base64 characters, or a literal of a trigger (any
 * case) found by one pass over the text, confirmed by its trigger's regex when it has one
 * (run once a text). The pass reads each place's two code units, lower-cased, in a table of
 * the literals starting so; only those are compared there. Every scan finds nothing in a
 * text it says no to.
 */
export function prefilterOf(triggers: readonly Trigger[]): Prefilter {
  // Each confirming regex made the first time its literal is found (most never are).
  const confirms: (RegExp | undefined)[] = []
  // Literals by their first two code units (lower case, 7 bits each), and for each such
  // pair the third code units they go on with (a bit each; all of them when one is two
  // long); a literal whose first code unit is not ASCII is that one code unit (`\u212a`),
  // and is found alone.
  const table: ([string, number][] | undefined)[] = []
  const third = new Uint32Array(16384 * 4)
  const wide = new Map<number, number[]>()
  for (const [k, [, literals]] of triggers.entries())
    for (const l of literals) {
      const first = l.charCodeAt(0)
      // (Every literal is one code unit past ASCII, or two ASCII ones or more in lower case:
      // the prefilter's test checks it.)
      if (first >= 128) {
        wide.set(first, [...(wide.get(first) ?? []), k])
        continue
      }
      const key = (first << 7) | l.charCodeAt(1)
      table[key] = [...(table[key] ?? []), [l, k]]
      if (l.length === 2) third.fill(0xffffffff, key * 4, key * 4 + 4)
      else {
        // Both cases of a letter: the text's third code unit is compared as written.
        const c = l.charCodeAt(2)
        for (const x of c >= 97 && c <= 122 ? [c, c - 32] : [c])
          third[key * 4 + (x >> 5)] = (third[key * 4 + (x >> 5)] as number) | (1 << (x & 31))
      }
    }
  const ranIn = new Float64Array(triggers.length)
  let call = 0
  // Whether trigger `k`, one of whose literals is in the text, holds: confirmed once a text.
  const holds = (k: number, text: string) => {
    const source = triggers[k]?.[2]
    if (source === undefined) return true
    if (ranIn[k] === call) return false
    ranIn[k] = call
    confirms[k] ??= new RegExp(source, 'i')
    return confirms[k].test(text)
  }
  return (text) => {
    if (base64Run(text)) return true
    call++
    const n = text.length
    let c1 = n > 0 ? text.charCodeAt(0) : 0
    for (let i = 0; i < n; i++) {
      const c0 = c1
      c1 = i + 1 < n ? text.charCodeAt(i + 1) : 0
      if (c0 >= 128) {
        const ks = wide.get(c0)
        if (ks) for (const k of ks) if (holds(k, text)) return true
        continue
      }
      if (c1 >= 128 || i + 1 >= n) continue
      const key = (lower(c0) << 7) | lower(c1)
      // Past the end, or not ASCII: read as code 0, which only two-long literals let through.
      let c2 = i + 2 < n ? text.charCodeAt(i + 2) : 0
      if (c2 >= 128) c2 = 0
      if (!(((third[key * 4 + (c2 >> 5)] as number) >>> (c2 & 31)) & 1)) continue
      const list = table[key]
      if (!list) continue
      for (const [l, k] of list) {
        if (i + l.length > n) continue
        let j = 2
        while (j < l.length && lower(text.charCodeAt(i + j)) === l.charCodeAt(j)) j++
        if (j === l.length && holds(k, text)) return true
      }
    }
    return false
  }
}

/** Standard base64's characters, by code unit. */
const BASE64_CHARS = new Uint8Array(128)
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')
  BASE64_CHARS[c.charCodeAt(0)] = 1

const isBase64 = (c: number) => c < 128 && BASE64_CHARS[c] === 1

/**
 * Whether `text` holds a run of 64 base64 characters. A run that long covers every 64th
 * place, so only those are read first, and from one in a run back to its start: a text
 * without such a run costs a sixty-fourth of its length plus the short runs it crosses.
 */
export function base64Run(text: string): boolean {
  let i = 63
  while (i < text.length) {
    if (!isBase64(text.charCodeAt(i))) {
      i += 64
      continue
    }
    // The run through `i` starts at `j + 1`: when it is 64 long by `i`, found.
    let j = i - 1
    while (j > i - 64 && isBase64(text.charCodeAt(j))) j--
    if (j === i - 64) return true
    // A run of 64 holding a place in (j, i] would reach back past j: the next can end no
    // sooner than j + 64.
    i = j + 64
  }
  return false
}
