import { requireMessages } from './check.js'
import type { Fact } from './fact.js'
import { fromText, isBlob, looksLikeId, MAX_ID, MAX_PER_MESSAGE } from './fact-text.js'
import { JsonDeep, JsonNumber, JsonObject, type JsonValue, readJson } from './json.js'
import { contentText, type Message } from './message.js'

export type { Fact, FactKind, FactReport } from './fact.js'

/** JSON containers nested deeper than this are read as text. */
const MAX_DEPTH = 12

/** The key's last word names money (`price`, `total_price`, `refundAmount`; not `total_baggages`). */
const AMOUNT_WORD =
  /(?:^|_)(?:price|amount|balance|cost|fee|total|refund|paid|charge|fare|budget|salary|tax)e?s?$/
/** The key's last word says the value identifies something (`reservation_id`, `orderNumber`, `commit_sha`). */
const ID_WORD =
  /(?:^|_)(?:id|ids|code|number|no|num|ref|reference|sku|key|uuid|handle|username|account|sha|sha1|sha256|hash|commit|digest|checksum|etag|arn|urn)$/
const words = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase()

/** What a key's words say of its values (1 an amount, 2 an identifier), read once per key. */
const keySense = new Map<string, number>()
function senseOf(key: string): number {
  let sense = keySense.get(key)
  if (sense === undefined) {
    const w = words(key)
    sense = (AMOUNT_WORD.test(w) ? 1 : 0) | (ID_WORD.test(w) ? 2 : 0)
    // Bounded: a tool result keyed by ids would otherwise grow it without end.
    if (keySense.size >= 4096) keySense.clear()
    keySense.set(key, sense)
  }
  return sense
}
const isAmountKey = (key: string | undefined) => key !== undefined && (senseOf(key) & 1) !== 0
const isIdKey = (key: string | undefined) => key !== undefined && (senseOf(key) & 2) !== 0

/**
 * Walks JSON as `readJson` gives it: keys name what the values are. A string's facts are
 * pieces of the decoded string (`"a\u00e9"` is read as `aé`); a number's, its source text.
 */
function fromJson(value: JsonValue, out: Fact[], key: string | undefined, limit: number): void {
  if (out.length >= limit) return
  if (typeof value === 'string') {
    // An id by its key, or a code written in capitals (`UHDAHF` in a list of reservations,
    // `JFK` as an origin).
    if (
      (isIdKey(key) && value.length <= MAX_ID && /^[\p{L}\p{N}\p{M}_.:/+=-]{2,}$/u.test(value)) ||
      /^(?:[A-Z0-9]{5,12}|[A-Z]{3,4})$/.test(value)
    ) {
      out.push(key ? { kind: 'id', value, label: key } : { kind: 'id', value })
      return
    }
    fromText(value, out, key)
    return
  }
  if (value instanceof JsonNumber) {
    if (isAmountKey(key)) out.push({ kind: 'amount', value: value.raw, label: key })
    else if (isIdKey(key)) out.push({ kind: 'id', value: value.raw, label: key })
    return
  }
  if (Array.isArray(value)) {
    for (const v of value) fromJson(v, out, key, limit)
    return
  }
  if (value instanceof JsonObject) {
    for (const [k, v] of value.entries) {
      // Object keys can be identifiers too (a map from payment id to its record), field names not.
      if (looksLikeId(k) && (/\d{3}/.test(k) || /[A-Z]/.test(k)) && !isBlob(k))
        out.push({ kind: 'id', value: k, ...(key && { label: key }) })
      fromJson(v, out, k, limit)
    }
    return
  }
  // Nested deeper than MAX_DEPTH: its source text, read as text.
  if (value instanceof JsonDeep) fromText(value.text, out)
}

function fromStructured(text: string, out: Fact[]): void {
  const t = text.trim()
  if ((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))) {
    const value = readJson(t, MAX_DEPTH)
    if (value !== undefined) {
      fromJson(value, out, undefined, out.length + MAX_PER_MESSAGE)
      return
    }
    // Not JSON after all: read it as text.
  }
  fromText(text, out)
}

const keyOf = (f: Fact) => `${f.kind}\u0000${f.value}`

/**
 * The facts of some messages that a summary must keep: identifiers (codes, ids, flight
 * numbers, hashes), emails, URLs, file paths, dates, amounts, numbers with units, and
 * each tool called with its outcome. JSON tool results and arguments are read as JSON, so
 * a value is labelled by its key. One entry per distinct value, the newest occurrence last.
 */
export function extractFacts(messages: readonly Message[]): Fact[] {
  requireMessages(messages)
  return factsOfChecked(messages)
}

/** `extractFacts` of messages known to be valid (a message the library already holds). */
export function factsOfChecked(messages: readonly Message[]): Fact[] {
  const all: Fact[] = []
  const names = new Map<string, string>()
  for (const m of messages) {
    if (m.role === 'assistant') {
      fromText(contentText(m.content), all)
      for (const c of m.toolCalls ?? []) {
        names.set(c.id, c.name)
        fromStructured(c.arguments, all)
      }
    } else if (m.role === 'tool') {
      const name = m.toolName ?? names.get(m.toolCallId) ?? 'tool'
      all.push({ kind: 'tool', value: `${name} ${m.isError ? 'error' : 'ok'}` })
      fromStructured(contentText(m.content), all)
    } else {
      fromText(contentText(m.content), all)
    }
  }
  return dedupe(all)
}

/** The facts of a text read by every pattern, without the shortcut for texts that hold none: what the shortcut is checked against. */
export function everyFactOfText(text: string): Fact[] {
  const out: Fact[] = []
  fromText(text, out, undefined, true)
  return dedupe(out)
}

/** Facts written in a text (a summary made before, read back). */
export function factsOfText(text: string): Fact[] {
  const out: Fact[] = []
  fromText(text, out)
  return dedupe(out)
}

function dedupe(facts: readonly Fact[]): Fact[] {
  const seen = new Map<string, Fact>()
  for (const f of facts) {
    const k = keyOf(f)
    const before = seen.get(k)
    if (before) seen.delete(k)
    // A label, once known, is kept.
    seen.set(k, before?.label && !f.label ? before : f)
  }
  return [...seen.values()]
}

/** Both lists, one entry per distinct fact, `later` winning. */
export function mergeFacts(earlier: readonly Fact[], later: readonly Fact[]): Fact[] {
  return dedupe([...earlier, ...later])
}
