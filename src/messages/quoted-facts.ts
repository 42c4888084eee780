import { credentialSpans, isCredential, isCredentialKey } from './credentials.js'
import type { Fact } from './fact.js'
import { extractFacts, mergeFacts } from './facts.js'
import { contentText, type Message } from './message.js'

/** What derived text may quote of one message, and the credentials it held (never quoted). */
export interface Quotable {
  facts: Fact[]
  /** Credentials the message holds: a value equal to one, or holding one, is not quoted from any message. */
  secrets: string[]
}

/** The texts of a message the facts are read from: its content, and a call's arguments. */
function textsOf(m: Message): string[] {
  const texts = [contentText(m.content)]
  if (m.role === 'assistant') for (const c of m.toolCalls ?? []) texts.push(c.arguments)
  return texts
}

/** Every leaf under a credential's key, at any depth (`{"credentials": {"value": X}}`), keys below it too. */
function leavesUnder(value: unknown, under: boolean, out: string[], depth = 0): void {
  if (depth > 64) return
  if (typeof value === 'string' || typeof value === 'number') {
    if (under) out.push(String(value))
  } else if (Array.isArray(value)) {
    for (const v of value) leavesUnder(v, under, out, depth + 1)
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (under) out.push(k)
      leavesUnder(v, under || isCredentialKey(k), out, depth + 1)
    }
  }
}

/** The credentials of a message: by the filter's spans, and every value under a credential's key. */
export function secretsOf(m: Message): string[] {
  const out: string[] = []
  for (const text of textsOf(m)) {
    for (const [s, e] of credentialSpans(text)) out.push(text.slice(s, e))
    const t = text.trim()
    if (t.startsWith('{') || t.startsWith('[')) {
      try {
        leavesUnder(JSON.parse(t), false, out)
      } catch {
        // Not JSON: its text was read above.
      }
    }
  }
  return out.filter((s) => s.length > 0)
}

/** A value that is, holds, or is part of one of `secrets` (a short one must match whole). */
export function touchesSecret(value: string, secrets: readonly string[]): boolean {
  for (const s of secrets) {
    if (s === value) return true
    if (s.length >= 4 && value.includes(s)) return true
    if (value.length >= 4 && s.includes(value)) return true
  }
  return false
}

const cache = new WeakMap<Message, Quotable>()

/**
 * The facts of a message that derived text may quote, computed once per message object: no
 * value is or holds a credential, sits under a credential's key, or is part of a credential
 * the message holds elsewhere. Tool outcomes (`get_user ok`) are facts of kind `tool`.
 * `toolName` names a tool result's tool when the message does not.
 */
export function quotableFacts(m: Message, toolName?: string): Quotable {
  let entry = cache.get(m)
  if (!entry) {
    const named = m.role === 'tool' && !m.toolName && toolName ? { ...m, toolName } : m
    const secrets = secretsOf(m)
    const facts = extractFacts([named]).filter(
      (f) =>
        !(f.label !== undefined && isCredentialKey(f.label)) &&
        !isCredential(f.value) &&
        !touchesSecret(f.value, secrets),
    )
    entry = { facts, secrets }
    cache.set(m, entry)
  }
  return entry
}

/**
 * The quotable facts of several messages, one entry per distinct value (the newest last): a
 * credential any of them holds is quoted from none.
 */
export function quotableFactsOf(messages: readonly Message[]): Fact[] {
  const names = new Map<string, string>()
  const all: Quotable[] = []
  for (const m of messages) {
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) names.set(c.id, c.name)
    all.push(quotableFacts(m, m.role === 'tool' ? names.get(m.toolCallId) : undefined))
  }
  const secrets = all.flatMap((q) => q.secrets)
  let out: Fact[] = []
  for (const q of all)
    out = mergeFacts(
      out,
      q.facts.filter((f) => f.kind === 'tool' || !touchesSecret(f.value, secrets)),
    )
  return out
}
