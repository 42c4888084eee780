// The one renderer of text the library writes from messages (the ledger, the facts that stand
// in for a cleared tool result, a summary's facts section). Every line is made from records,
// and everything taken from a message is quoted: a value is always a JSON string, a key or a
// tool name is written bare only when it is a plain word, else quoted too. So no content can
// start a line, close a quote, or make a line name another message or role.

import { redactCredentials } from './credentials.js'
import type { Role } from './schema.js'

/** Who wrote a message, as a record names it. */
export interface Who {
  role: Role
  /** The tool whose result it is, or the tools an assistant message calls. */
  tools?: readonly string[]
}

/** One fact quoted from one message. */
export interface FactRecord {
  /** The message's index in the caller's history (what `kept`, `dropped` and `fates` use). */
  index: number
  who: Who
  /** The key it was written under (a JSON key), when there was one. */
  key?: string | undefined
  /** The text itself, exactly as the message held it. */
  value: string
}

/**
 * Escapes beyond JSON's: line and paragraph separators, other control and format
 * characters (bidirectional overrides among them) are written as `\uXXXX`, so a quoted value
 * reads as one line, in order, to a model and a person alike.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu

/** A value as a JSON string, one line, nothing in it read as markup. */
export function quote(value: string): string {
  return JSON.stringify(value).replace(
    UNSAFE,
    (c) => `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, '0')}`,
  )
}

/** Every line break a model, a browser or a terminal may read as one: CR LF, CR, LF, VT, FF, NEL, LS, PS. */
const BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/

/** Control and format characters but the tab, escaped as `\uXXXX` (a line break is not one left raw). */
function escapeUnsafe(line: string): string {
  return line.replace(UNSAFE, (c) =>
    c === '\t' ? c : `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, '0')}`,
  )
}

/** Prose from a message on one line: every line break a space, no control or format character raw. */
export function oneLine(text: string): string {
  // White space and NEL (the one break `\s` leaves out) in one pass.
  return escapeUnsafe(text.replace(/[\s\u0085]+/g, ' ').trim())
}

/**
 * Prose from a message kept on its lines, where an entry's head opens a line (a transcript):
 * each line after the first starts `> `, so no line of it can read as another entry or role.
 */
export function quotedLines(text: string): string {
  return text.split(BREAK).map(escapeUnsafe).join('\n> ')
}

/** A plain word (`reservation_id`, `get_user_details`, `user.name`) is written bare. */
const WORD = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/

/** Names as written, by name (bounded). */
const names = new Map<string, string>()

/**
 * A key, a tool name, a speaker's name or an id: bare when a plain word, else quoted like a
 * value; a credential in it (a token pasted as a tool name or a call id) is never written.
 */
export function name(text: string): string {
  let out = names.get(text)
  if (out === undefined) {
    const shown = redactCredentials(text)
    out = shown === text && WORD.test(text) ? text : quote(shown)
    // Keys and tool names repeat across records and calls: each is read by the filter once.
    if (names.size >= 10_000) names.clear()
    names.set(text, out)
  }
  return out
}

/** `user`, `assistant`, `assistant calling get_a and get_b`, `tool get_a`. */
export function whoText(who: Who): string {
  const tools = who.tools?.map(name) ?? []
  if (who.role === 'tool') return tools.length ? `tool ${tools[0]}` : 'tool'
  if (who.role === 'assistant' && tools.length) return `assistant calling ${tools.join(' and ')}`
  return who.role
}

/** The start of a record line: `message 4 by tool get_reservation_details:`. */
export function lineOpening(index: number, who: Who): string {
  return `message ${index} by ${whoText(who)}:`
}

/** One item of a line: `key="value"`, or `"value"` without a key. */
export function itemText(key: string | undefined, value: string, quoted = quote(value)): string {
  return key === undefined ? quoted : `${name(key)}=${quoted}`
}

/**
 * The items of one message's records, in order: values under one key in a row share it,
 * as a list (`reservations=["8JX2WO","NQNU5R"]`).
 */
export function itemsText(records: readonly Pick<FactRecord, 'key' | 'value'>[]): string {
  return itemParts(records).join(', ')
}

/** The items of `itemsText`, each apart (what it joins with `, `); `quoted` is a value's `quote`, when known. */
export function itemParts(
  records: readonly { key?: string | undefined; value: string; quoted?: string }[],
): string[] {
  const parts: string[] = []
  const quoted = (k: number) => {
    const r = records[k] as { value: string; quoted?: string }
    return r.quoted ?? quote(r.value)
  }
  for (let k = 0; k < records.length; ) {
    const key = records[k]?.key
    let j = k + 1
    while (j < records.length && key !== undefined && records[j]?.key === key) j++
    if (j - k > 1) {
      const values: string[] = []
      for (let i = k; i < j; i++) values.push(quoted(i))
      parts.push(`${name(key as string)}=[${values.join(',')}]`)
    } else parts.push(itemText(key, (records[k] as { value: string }).value, quoted(k)))
    k = j
  }
  return parts
}

/**
 * Record lines, one per message in the order its first record comes: `message N by WHO:`
 * and that message's items. A heading, when given, is the first line.
 */
export function renderRecords(records: readonly FactRecord[], heading?: string): string {
  const byIndex = new Map<number, FactRecord[]>()
  for (const r of records) {
    const list = byIndex.get(r.index)
    if (list) list.push(r)
    else byIndex.set(r.index, [r])
  }
  const lines = heading === undefined ? [] : [heading]
  for (const [index, list] of byIndex)
    lines.push(`${lineOpening(index, (list[0] as FactRecord).who)} ${itemsText(list)}`)
  return lines.join('\n')
}
