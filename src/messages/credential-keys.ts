/**
 * The credential filter's reading of names: whether a key names a credential (`password`,
 * `x-api-key`, `stripe_secret`), an identifier (`spreadsheet_id`), or who and how under one.
 */
import { SERVICE_WORDS } from './credential-rules.js'

/** Words that name a credential on their own (`password`, `SECRET`, `x-api-key`'s nothing). */
const CREDENTIAL_WORDS = new Set(
  'password passwords passwd passphrase passcode secret secrets token credential credentials creds authorization auth oauth cookie cookies session sessionid sessid jsessionid phpsessid cvv cvv2 cvc ssn pin otp signature sig mnemonic storepass keypass srcstorepass deststorepass srckeypass destkeypass'.split(
    ' ',
  ),
)

/** Run-together words ending so are credentials (`accesstoken`, `clientsecret`, `dbpassword`). */
const CREDENTIAL_SUFFIX =
  /(?:password|passwd|passphrase|secret|token|cookie|credentials?|signature|sessionid)$/

/** Words qualifying `key` into a credential's name (`api_key`, `private_key`, not `sort_key`). */
const KEY_QUALIFIERS = new Set(
  'api private secret access signing encryption decryption master client app license licence auth service account subscription consumer webhook session shared ssh gpg pgp root admin hmac jwt aes cipher crypto wallet storage deploy'.split(
    ' ',
  ),
)

/** Words before `token` that make it a counter or a cursor (`max_tokens`, `next_page_token`). */
const NOT_CREDENTIAL_TOKEN = new Set(
  'next page continuation pagination sync cursor max min num total input output prompt completion count start end first last special pad eos bos unk sep mask cls stop'.split(
    ' ',
  ),
)

/** Words before plural `tokens` that keep it a credential (`access_tokens`, not `max_tokens`). */
const CREDENTIAL_TOKENS = new Set('access refresh api auth bearer session id oauth csrf'.split(' '))

/** `pass` is a credential after these (`db_pass`), and alone; not `boarding_pass`. */
const PASS_OWNERS = new Set(
  'db user admin root smtp ftp proxy mysql redis ldap mail wifi login app'.split(' '),
)

/** Words after a credential's name that do not change what it holds (`password_confirm`). */
const MODIFIERS = new Set(
  'value val confirm confirmation hash hashed plain plaintext raw b64 base64 b58 hex pem der enc encrypted encoded code str text header old new current'.split(
    ' ',
  ),
)

/** Words after `key` that name its form (`client-key-data`, `secret_key_base`). */
const KEY_MODIFIERS = new Set('data base bytes material'.split(' '))

/** Words before `_id` that make the id itself a credential (`session_id`, Vault's `secret_id`). */
const ID_OWNERS = new Set('session secret token password'.split(' '))

/** Words before `phrase`/`words` that make them a secret (`seed_phrase`, `recovery_words`). */
const PHRASE_OWNERS = new Set('pass seed recovery secret mnemonic wallet backup'.split(' '))

/** Words before `codes` that make one-time codes (`recovery_codes`, `backup_codes`). */
const CODE_OWNERS = new Set('recovery backup mfa totp otp 2fa twofa'.split(' '))

let services: ReadonlySet<string> | undefined

/** gitleaks' service names (`stripe`, `github`): `<service>_key` names a credential. */
const serviceWords = () => {
  services ??= new Set(SERVICE_WORDS.split(' '))
  return services
}

/** A key's words, lowercase: camelCase, snake_case, kebab-case, dotted, spaced. */
export function keyWords(key: string): string[] {
  return key
    .slice(-64)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '')
}

/** Whether the head word `w` (after `prev`) names a credential. */
function credentialWord(w: string, prev: string | undefined): boolean {
  if (w === 'token') return prev === undefined || !NOT_CREDENTIAL_TOKEN.has(prev)
  if (w === 'tokens') return prev !== undefined && CREDENTIAL_TOKENS.has(prev)
  if (CREDENTIAL_WORDS.has(w)) return true
  if (w === 'key' || w === 'keys')
    return prev !== undefined && (KEY_QUALIFIERS.has(prev) || serviceWords().has(prev))
  if (w === 'pass') return prev === undefined || PASS_OWNERS.has(prev)
  if (w === 'pwd') return prev !== undefined // `PWD` alone is the shell's working directory
  if (w === 'phrase' || w === 'words') return prev !== undefined && PHRASE_OWNERS.has(prev)
  if (w === 'word' || w === 'code') return prev === 'pass'
  if (w === 'codes') return prev !== undefined && CODE_OWNERS.has(prev)
  if (w === 'string') return prev === 'connection' || prev === 'conn'
  if (w === 'id') return prev !== undefined && ID_OWNERS.has(prev)
  if (w.endsWith('tokens')) return false
  if (CREDENTIAL_SUFFIX.test(w)) return true
  return /^(?:api|private|secret|access)keys?$/.test(w)
}

/**
 * Whether a key names a credential, in any case or separator style. Its head word decides
 * (the last word, past modifiers like `_confirm` or `_hash`): `client_secret`, `X-Api-Key`,
 * `DB_PASSWORD`, `accessToken`, `session`; not `token_count`, `max_tokens`, `author`,
 * `passenger_id`, `primary_key`. An id is not a credential (`user_id`, `key_id`) unless its
 * owner word is one (`session_id`, `secret_id`); `PWD` alone is a directory, `boarding_pass`
 * a document, `next_page_token` a cursor.
 */
export function isCredentialKey(key: string): boolean {
  const words = keyWords(key)
  let i = words.length - 1
  while (
    i > 0 &&
    (MODIFIERS.has(words[i] as string) ||
      /^\d+$/.test(words[i] as string) ||
      (KEY_MODIFIERS.has(words[i] as string) && words[i - 1] === 'key'))
  )
    i--
  const w = words[i]?.replace(/(?<=[a-z])\d+$/, '') // password2
  return w !== undefined && credentialWord(w, words[i - 1])
}

/**
 * What every key `isCredentialKey` accepts holds, read off `credentialWord`: each entry the
 * words one of which it holds (any case), and when a word alone is not enough, a regex
 * (read case-insensitively) it matches. A name ending so (`dbpassword`, `accesstoken`); a
 * word naming a credential alone, ending a word or followed by a modifier (`pin_code`,
 * `pinHash`, `cvv2`); a word a qualifier makes a credential, after it (`api-key`, `seed
 * phrase`, `recovery_codes`). Two letters lower-case to ASCII ones (`\u212a` to `k`,
 * `\u0130` to `i` and a dot): a text holding either is read whole.
 */
export function credentialKeyTriggers(): [string[], string?][] {
  const any = (words: Iterable<string>) => `(?:${[...words].join('|')})`
  const end = `(?:[^a-z]|$|${any(MODIFIERS)})`
  const apart = '[^a-z0-9]*'
  const alone = ['creds', 'auth', 'session', 'sessid', 'cvv', 'cvc', 'ssn', 'pin', 'otp', 'sig']
  return [
    [['password', 'passwd', 'passphrase', 'secret', 'token', 'cookie', 'credential']],
    [['signature', 'sessionid', 'authorization', 'mnemonic']],
    [alone, `${any(alone)}${end}`],
    [['pass'], `pass${end}`],
    [['pwd'], `pwd${end}`],
    [['key'], `${any([...KEY_QUALIFIERS, ...serviceWords()])}${apart}key`],
    [['phrase', 'words'], `${any(PHRASE_OWNERS)}${apart}(?:phrase|words)`],
    [['codes'], `${any(CODE_OWNERS)}${apart}codes`],
    [['string'], `conn(?:ection)?${apart}string`],
    [['\u0130', '\u212a']],
  ]
}

/** Keys inside a credential's object that say who or how, not the secret (`user`, `type`). */
const NOT_SECRET_KEYS =
  /^(?:user|username|user_name|login|email|mail|name|type|kind|scheme|method|mode|provider|issuer|audience|aud|scope|scopes|url|uri|host|hostname|port|endpoint|region|domain|realm|tenant|account|database|db|protocol|path|format|version|alg|algorithm|enabled|expires|expiry|expires_at|expires_in|created|created_at|updated_at|header|prefix)$/i

/** Whether a key inside a credential's object says who or how (`user`, `type`), not the secret. */
export const saysWhoOrHow = (key: string): boolean => NOT_SECRET_KEYS.test(key)

/**
 * Whether a key names an identifier (`message_id`, `playlistId`, `spreadsheet_ids`, `uuid`):
 * an id is not a credential unless its owner word is one (`session_id`, `secret_id`).
 */
export function isIdKey(key: string): boolean {
  const words = keyWords(key)
  const head = words[words.length - 1]
  return (
    head !== undefined &&
    /^(?:id|ids|uuid|guid|sha|oid|ref|etag)$/.test(head) &&
    !isCredentialKey(key)
  )
}
