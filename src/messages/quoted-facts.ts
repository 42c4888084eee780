import {
  CREDENTIAL_MARK,
  credentialFree,
  credentialSpans,
  isCredential,
  isCredentialKey,
  isIdKey,
  redactCredentials,
  saysWhoOrHow,
} from './credentials.js'
import type { Fact } from './fact.js'
import { factsOfChecked, mergeFacts } from './facts.js'
import { JsonDeep, JsonNumber, JsonObject, type JsonValue, readJson } from './json.js'
import { contentText, type Message } from './message.js'

/** What derived text may quote of one message, and the credentials it held (never quoted). */
export interface Quotable {
  facts: Fact[]
  /** Credentials the message holds, by piece: another message holding one quotes nothing of it. */
  secrets: readonly string[]
}

/** What a credential is replaced by before facts are read: a fact holding it is not quoted. */
const MARK = CREDENTIAL_MARK

/** The texts of a message the facts are read from: its content, and a call's arguments. */
function textsOf(m: Message): string[] {
  const texts = [contentText(m.content)]
  if (m.role === 'assistant') for (const c of m.toolCalls ?? []) texts.push(c.arguments)
  return texts
}

/** The filter's spans of the texts of one message, found once for its credentials and its redaction. */
type Spans = Map<string, ReturnType<typeof credentialSpans>>

function spansOf(text: string, found: Spans): ReturnType<typeof credentialSpans> {
  let spans = found.get(text)
  if (!spans) {
    spans = credentialSpans(text)
    found.set(text, spans)
  }
  return spans
}

/**
 * `text` with `secret` replaced by the mark: anywhere when it is long enough to be nothing
 * else, else only where it stands alone (a short password is not hidden inside a word).
 */
function replaced(text: string, secret: string): string {
  if (secret.length >= 8) return text.split(secret).join(MARK)
  let out = ''
  let at = 0
  for (let i = text.indexOf(secret); i >= 0; i = text.indexOf(secret, i + secret.length)) {
    const end = i + secret.length
    if (WORD.test(text[i - 1] ?? '') || WORD.test(text[end] ?? '')) continue
    out += text.slice(at, i) + MARK
    at = end
  }
  return out + text.slice(at)
}
const WORD = /[\p{L}\p{N}_]/u

/** `text` with the filter's credentials and each of `known` replaced by the mark. */
function redacted(text: string, known: readonly string[], found: Spans): string {
  let out = redactCredentials(text, spansOf(text, found))
  for (const k of known) if (out.includes(k)) out = replaced(out, k)
  return out
}

/** The message with its credentials replaced in its text parts and call arguments. */
function redactedMessage(m: Message, known: readonly string[], found: Spans = new Map()): Message {
  const content = m.content
  const clean =
    typeof content === 'string'
      ? redacted(content, known, found)
      : content?.map((p) =>
          p.type === 'text' ? { ...p, text: redacted(p.text, known, found) } : p,
        )
  if (m.role === 'assistant' && m.toolCalls)
    return {
      ...m,
      content: clean as typeof m.content,
      toolCalls: m.toolCalls.map((c) => ({ ...c, arguments: redacted(c.arguments, known, found) })),
    }
  return { ...m, content: clean } as Message
}

/**
 * Every leaf under a credential's key, at any depth (`{"credentials": {"value": X}}`), keys
 * below it too, as written (a number is its source text, as the facts list it).
 */
function leavesUnder(value: JsonValue, under: boolean, out: string[], depth = 0): void {
  if (depth > 64) return
  if (typeof value === 'string') {
    if (under) out.push(value)
    // JSON held in a string (a request body, a note) is read as JSON too.
    const t = value.trim()
    if (t.length > 1 && (t[0] === '{' || t[0] === '[')) {
      const inner = readJson(t)
      if (inner !== undefined) leavesUnder(inner, under, out, depth + 1)
    }
  } else if (value instanceof JsonNumber) {
    if (under) out.push(value.raw)
  } else if (value instanceof JsonDeep) {
    if (under) out.push(value.text)
  } else if (Array.isArray(value)) {
    for (const v of value) leavesUnder(v, under, out, depth + 1)
  } else if (value instanceof JsonObject) {
    // A header or field given as a pair: `{"name": "Authorization", "value": "Bearer x"}`.
    const named = value.entries.find(
      ([k, v]) => /^(?:name|key|header|field)$/i.test(k) && typeof v === 'string',
    )
    const pair = named !== undefined && isCredentialKey(named[1] as string)
    for (const [k, v] of value.entries) {
      // A key is a name, never a secret; under a credential, who and how (`user`, `type`)
      // are not the secret either, unless their own name says so.
      const secret = isCredentialKey(k) || (pair && k !== named[0])
      leavesUnder(v, secret || (under && !saysWhoOrHow(k)), out, depth + 1)
    }
  }
}

/**
 * Pieces of a credential worth looking for elsewhere: the whole, and its parts between
 * separators (a URL's password, a token after `Bearer`) that look like secrets, never a word
 * (a phrase is looked for whole).
 */
function pieces(secret: string): string[] {
  const out = [secret]
  if (/\s/.test(secret.trim())) return out
  for (const p of secret.split(/[:@/=;,"'&?]+/))
    if (p.length >= 8 && p !== secret && !/^[A-Za-z]+$/.test(p)) out.push(p)
  return out
}

/** Values that are never a secret to look for elsewhere: scheme names, placeholders, words of a key. */
const NOT_A_SECRET =
  /^(?:basic|bearer|digest|token|oauth2?|negotiate|ntlm|apikey|api_key|jwt|none|null|true|false|undefined|password|secret|user|admin|root|default|\*+|\.\.\.)$/i

/**
 * The credentials of a message: by the filter's spans, and every value under a credential's
 * key. Most texts hold none, which the filter's prefilter says in one pass: such a text is
 * neither scanned nor, when it writes no escape (a key's name could hide behind one), read
 * as JSON. `prefiltered` false reads every text whole (for tests).
 */
export function secretsOf(m: Message, found: Spans = new Map(), prefiltered = true): string[] {
  const out: string[] = []
  for (const text of textsOf(m)) {
    if (prefiltered && !text.includes('\\') && credentialFree(text)) {
      found.set(text, [])
      continue
    }
    for (const [s, e] of spansOf(text, found)) out.push(...pieces(text.slice(s, e)))
    const t = text.trim()
    if (t.startsWith('{') || t.startsWith('[')) {
      const parsed = readJson(t)
      if (parsed !== undefined) leavesUnder(parsed, false, out)
    }
  }
  return out.filter((s) => s.length >= 4 && s !== MARK && !NOT_A_SECRET.test(s))
}

const secretsCache = new WeakMap<Message, readonly string[]>()

/**
 * The credentials a message holds, by piece (what `quotableFacts(m).secrets` gives), without
 * reading its facts: computed once per message object. A search that only redacts needs no more.
 */
export function messageSecrets(m: Message, found: Spans = new Map()): readonly string[] {
  let out = secretsCache.get(m)
  if (!out) {
    out = secretsOf(m, found)
    secretsCache.set(m, out)
  }
  return out
}

/** A value that is, holds, or is part of one of `secrets`. */
function touchesSecret(value: string, secrets: readonly string[]): boolean {
  for (const s of secrets) if (s === value || value.includes(s) || s.includes(value)) return true
  return false
}

const cache = new WeakMap<Message, Map<string, Quotable>>()

/** What a fact's label says (1 it names a credential, 2 an identifier), read once per label. */
const labelSense = new Map<string, number>()
function senseOf(label: string): number {
  let sense = labelSense.get(label)
  if (sense === undefined) {
    sense = (isCredentialKey(label) ? 1 : 0) | (isIdKey(label) ? 2 : 0)
    // Bounded: labels are keys of tool results, which a history can make without end.
    if (labelSense.size >= 4096) labelSense.clear()
    labelSense.set(label, sense)
  }
  return sense
}

function read(m: Message, toolName: string | undefined, known: readonly string[]): Quotable {
  const named = m.role === 'tool' && !m.toolName && toolName ? { ...m, toolName } : m
  // The filter reads each text once, for the credentials and for the redaction.
  const found: Spans = new Map()
  const secrets = messageSecrets(m, found)
  const facts = factsOfChecked([redactedMessage(named, known, found)]).filter(
    (f) =>
      // A fact cut at the mark's bracket (`https://[credential`) holds part of it too.
      !f.value.includes(MARK.slice(0, -1)) &&
      !f.value.includes(MARK.slice(1)) &&
      !(f.label !== undefined && senseOf(f.label) & 1) &&
      // An id's value is random by design (`spreadsheet_id`, `message_id`): only a
      // credential's form hides it, not how random it looks.
      !(f.label !== undefined && senseOf(f.label) & 2
        ? credentialSpans(f.value).length > 0
        : isCredential(f.value)) &&
      !touchesSecret(f.value, secrets),
  )
  return { facts, secrets }
}

/**
 * The facts of a message that derived text may quote. Credentials are taken out of the text
 * before any fact is read (the filter's spans, and `known`: credentials other messages held),
 * so no fact can hold one or part of one; a value under a credential's key, at any depth, is
 * left out too. Tool outcomes (`get_user ok`) are facts of kind `tool`. Computed once per
 * message object when `known` has nothing the message holds. `toolName` names a tool
 * result's tool when the message does not.
 */
export function quotableFacts(
  m: Message,
  toolName?: string,
  known: readonly string[] = [],
): Quotable {
  // Once per message object and tool name (the name is a fact of a tool result).
  let byName = cache.get(m)
  if (!byName) {
    byName = new Map()
    cache.set(m, byName)
  }
  let entry = byName.get(toolName ?? '')
  if (!entry) {
    entry = read(m, toolName, [])
    byName.set(toolName ?? '', entry)
  }
  if (known.length === 0) return entry
  // Its own credentials are out already; read again only for another message's it holds.
  const own = entry.secrets
  const texts = textsOf(m)
  const mentioned = known.filter((k) => !own.includes(k) && texts.some((t) => t.includes(k)))
  return mentioned.length > 0 ? read(m, toolName, mentioned) : entry
}

/**
 * The quotable facts of several messages, one entry per distinct value (the newest last): a
 * credential any of them holds is quoted from none.
 */
export function quotableFactsOf(messages: readonly Message[]): Fact[] {
  const names = new Map<string, string>()
  const tools: (string | undefined)[] = []
  const secrets: string[] = []
  for (const m of messages) {
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) names.set(c.id, c.name)
    const tool = m.role === 'tool' ? names.get(m.toolCallId) : undefined
    tools.push(tool)
    secrets.push(...quotableFacts(m, tool).secrets)
  }
  let out: Fact[] = []
  messages.forEach((m, k) => {
    out = mergeFacts(out, quotableFacts(m, tools[k], secrets).facts)
  })
  return out
}

/**
 * Copies of the messages with every credential replaced by `[credential]`: the filter's, and
 * those any of them holds elsewhere (what a summarizer is given to read).
 */
export function withoutCredentials(messages: readonly Message[]): Message[] {
  const secrets = messages.flatMap((m) => quotableFacts(m).secrets)
  return messages.map((m) => redactedMessage(m, secrets))
}
