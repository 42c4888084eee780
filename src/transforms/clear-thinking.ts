import { InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { describeValue, requireOptions } from '../options-check.js'
import { fieldsOf, isList } from '../providers/codec-kit.js'
import type { Transform } from '../strategies/types.js'

/** How much reasoning stays: that of the newest N assistant turns, or all of it. */
export type ThinkingKeep = { type: 'thinking_turns'; value: number } | 'all'

export interface ClearThinkingOptions {
  /** Default `{ type: 'thinking_turns', value: 1 }`, as Anthropic's `clear_thinking_20251015`. */
  keep?: ThinkingKeep
}

/** Where the Anthropic codec keeps a message's block layout (redacted thinking included). */
const ANTHROPIC = 'anthropic'

/**
 * Anthropic's `clear_thinking_20251015` done on the client, for any provider: reasoning is
 * removed from every assistant turn but the newest `keep.value`. A turn is what the
 * assistant does between two user messages (its text, its tool calls and the reasoning
 * between them), so a tool loop keeps its reasoning together. `keep: 'all'` clears nothing,
 * which keeps the prompt cache whole. Redacted thinking kept by the Anthropic codec goes too.
 *
 * Unlike `dropThoughts({ keepLast })`, which counts assistant messages that have reasoning,
 * this counts turns, whether they reasoned or not.
 */
export function clearThinking(
  options: ClearThinkingOptions = {},
): Transform<'clearThinking', ClearThinkingOptions> {
  requireOptions(options, 'clearThinking', ['keep'])
  const keep = options.keep ?? { type: 'thinking_turns', value: 1 }
  if (
    keep !== 'all' &&
    !(
      keep &&
      typeof keep === 'object' &&
      Object.hasOwn(keep, 'type') &&
      Object.hasOwn(keep, 'value') &&
      keep.type === 'thinking_turns' &&
      Number.isSafeInteger(keep.value) &&
      keep.value >= 0
    )
  ) {
    throw new InvalidOptionError(
      'keep',
      `expected 'all' or { type: 'thinking_turns', value: N } with N a whole number >= 0, got ${describeValue(keep)}`,
    )
  }
  return {
    name: 'clearThinking',
    reason: 'thought-dropped',
    options: { keep },
    apply(view) {
      const out = new Map<number, Message | null>()
      if (keep === 'all') return out
      let turns = 0
      let inTurn = false
      for (let i = view.messages.length - 1; i >= 0; i--) {
        const m = view.messages[i]
        if (!m) continue
        if (m.role === 'user' || m.role === 'system') {
          inTurn = false
          continue
        }
        if (m.role !== 'assistant') continue
        if (!inTurn) {
          turns++
          inTurn = true
        }
        if (turns <= keep.value) continue
        const cleared = withoutThinking(m)
        if (cleared) out.set(i, cleared)
      }
      return out
    },
  }
}

/** The message without its reasoning, or undefined when it has none. */
function withoutThinking(m: Message & { role: 'assistant' }): Message | undefined {
  const meta = m.providerMetadata?.[ANTHROPIC]
  const given = meta?.layout
  const layout = isList(given) ? given : undefined
  const redacted = (slot: unknown) => fieldsOf(fieldsOf(slot).block).type === 'redacted_thinking'
  const hasRedacted = layout?.some(redacted) ?? false
  if (m.thought === undefined && !hasRedacted) return undefined
  const { thought: _thought, ...rest } = m
  if (!hasRedacted || !layout || !m.providerMetadata) return rest
  return {
    ...rest,
    providerMetadata: {
      ...m.providerMetadata,
      [ANTHROPIC]: { ...meta, layout: layout.filter((slot) => !redacted(slot)) },
    },
  }
}
