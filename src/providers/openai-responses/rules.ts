import type { Message } from '../../messages/message.js'
import { fieldsOf, isJson, isList, type Json, jsonField } from '../codec-kit.js'
import type { Problem, ResponsesProblemCode, ResponsesRuleOptions } from '../problems.js'
import type { MessageRules } from '../types.js'

/** Metadata key of the Responses codec (kept here as data: this layer does not import codecs). */
const KEY = 'openai-responses'

function layoutOf(m: Message): Json[] {
  const layout = m.providerMetadata?.[KEY]?.layout
  return isList(layout) ? layout.filter(isJson) : []
}

function isCompaction(m: Message): boolean {
  return m.role === 'system' && fieldsOf(m.providerMetadata?.[KEY]?.item).type === 'compaction'
}

/** Reasoning with nothing of its own after it: a message holding only reasoning items. */
function reasoningOnly(m: Message): boolean {
  if (m.role !== 'assistant' || m.thought === undefined || m.toolCalls?.length) return false
  const layout = layoutOf(m)
  if (!layout.some((s) => s.t === 'reasoning')) return false
  if (typeof m.content === 'string') return m.content.length === 0
  return (m.content ?? []).length === 0
}

/**
 * The Responses API's own rules, on top of the shared ones (every call answered, every
 * output after its call). The codec never sends a reasoning item without the item it
 * produced, nor (with `store: false`) one without `encrypted_content`, nor an item id whose
 * reasoning is left out; these are reported as warnings: the request is accepted, changed.
 */
export function responsesRules(
  messages: readonly Message[],
  problems: Problem[],
  options: ResponsesRuleOptions = {},
): void {
  const latest = latestCompaction(messages)
  let lead = 0
  while (lead < messages.length && messages[lead]?.role === 'system') lead++
  messages.forEach((m, index) => {
    if (index < latest && index >= lead) {
      problems.push({
        index,
        code: 'superseded-by-compaction',
        severity: 'warning',
        message: `item before the compaction item at message ${latest}: it is part of what was compacted`,
      })
    }
    if (reasoningOnly(m)) {
      problems.push({
        index,
        code: 'reasoning-without-following-item',
        severity: 'warning',
        message: 'a reasoning item with no item of its own after it is not sent',
      })
    }
    if (options.store === false && m.role === 'assistant' && m.thought !== undefined) {
      for (const s of layoutOf(m)) {
        const enc = jsonField(s, 'item')?.encrypted_content
        if (s.t === 'reasoning' && (typeof enc !== 'string' || enc.length === 0)) {
          problems.push({
            index,
            code: 'reasoning-not-replayable',
            severity: 'warning',
            message: `reasoning item ${String(jsonField(s, 'item')?.id)} has no encrypted_content: with store false it is not sent`,
          })
        }
      }
    }
  })
}

function latestCompaction(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (m && isCompaction(m)) return i
  }
  return -1
}

/**
 * Messages repair takes out for the Responses API, by input index: everything between the
 * leading system messages and the latest compaction item (the compaction stands for it, and
 * then sits in the preamble, which no strategy drops), and messages holding nothing but
 * reasoning. Each is a whole unit.
 */
export function responsesRemovals(messages: readonly Message[]): Map<number, ResponsesProblemCode> {
  const out = new Map<number, ResponsesProblemCode>()
  const latest = latestCompaction(messages)
  let lead = 0
  while (lead < messages.length && messages[lead]?.role === 'system') lead++
  for (let i = lead; i < latest; i++) out.set(i, 'superseded-by-compaction')
  messages.forEach((m, i) => {
    if (reasoningOnly(m)) out.set(i, 'reasoning-without-following-item')
  })
  return out
}

/**
 * OpenAI Responses' message rules: an output message takes only text and refusal parts (the
 * codec leaves others out), reasoning and a refusal are items of their own that its rules
 * judge (a reasoning item needs the item it produced; a compaction supersedes what is
 * before it), and an empty input list is its own affair.
 */
export const responsesMessages: MessageRules = {
  label: 'OpenAI Responses',
  assistantMedia: 'warning',
  ownReasoning: { key: KEY, slot: 'reasoning', noun: 'reasoning item' },
  judgesOwn: (m) => m.thought !== undefined,
  reasoningIsContent: true,
  needs: 'own',
  removals: responsesRemovals,
}
