import { InvalidOptionError } from '../errors.js'
import { isCarried } from '../messages/carried.js'
import { rankFacts } from '../messages/fact-list.js'
import type { ContentPart, Message } from '../messages/message.js'
import { quotableFacts } from '../messages/quoted-facts.js'
import { itemsText } from '../messages/records.js'
import type { Unit } from '../messages/units.js'
import { describeValue, requireArgument, requireOptions } from '../options-check.js'
import { isMovedMediaHeader } from '../providers/repair-writes.js'
import { recallNote } from '../recall/notes.js'
import { positiveInt } from '../strategies/buffered.js'
import type { Transform } from '../strategies/types.js'

export interface ClearToolResultsOptions {
  /** Start clearing once the input (messages, tool schemas, priming) passes this many tokens. Default: always. */
  trigger?: number
  /** The newest tool exchanges left untouched. Default 3. */
  keep?: number
  /**
   * Clear at least this many tokens at a time, or nothing (as Anthropic does): clearing
   * invalidates the prompt cache from that point, so a small gain is not worth it.
   */
  clearAtLeast?: number
  /** Tool names never cleared. */
  excludeTools?: string[]
  /** Also replace the call arguments with `{}`: of every cleared call, or of the tools named. */
  clearInputs?: boolean | string[]
  /** Text that replaces a cleared result. */
  placeholder?: string
  /**
   * Keep the facts of a cleared result after the placeholder: its identifiers, emails, dates,
   * amounts (at most 24, identifiers first), so a later call can still name them.
   */
  facts?: boolean
}

/** Facts kept of one cleared result, at most. */
const FACTS_PER_RESULT = 24

const CLEAR_TOOL_RESULTS_OPTIONS = [
  'trigger',
  'keep',
  'clearAtLeast',
  'excludeTools',
  'clearInputs',
  'placeholder',
  'facts',
]

export const CLEARED = '[tool result cleared to save context]'

/**
 * Anthropic's server-side context editing (`clear_tool_uses`) done on the client: once over
 * `trigger`, the results of the oldest tool exchanges (all but the newest `keep`, never
 * tools in `excludeTools`) are replaced by a short placeholder, oldest first, in batches of
 * at least `clearAtLeast` tokens. Calls keep their results (now placeholders): still valid.
 */
export function clearToolResults(
  options: ClearToolResultsOptions = {},
): Transform<'clearToolResults', ClearToolResultsOptions> {
  requireOptions(options, 'clearToolResults', CLEAR_TOOL_RESULTS_OPTIONS)
  const keep = positiveInt('keep', options.keep ?? 3, true)
  const trigger = positiveInt('trigger', options.trigger ?? 0, true)
  const clearAtLeast = positiveInt('clearAtLeast', options.clearAtLeast ?? 0, true)
  const { excludeTools = [], clearInputs, placeholder = CLEARED } = options
  requireArgument(
    Array.isArray(excludeTools) && excludeTools.every((t) => typeof t === 'string'),
    'clearToolResults',
    'excludeTools',
    'a list of tool names',
    excludeTools,
  )
  requireArgument(
    clearInputs === undefined ||
      typeof clearInputs === 'boolean' ||
      (Array.isArray(clearInputs) && clearInputs.every((t) => typeof t === 'string')),
    'clearToolResults',
    'clearInputs',
    'true, false or a list of tool names',
    clearInputs,
  )
  requireArgument(
    typeof placeholder === 'string',
    'clearToolResults',
    'placeholder',
    'a string',
    placeholder,
  )
  const exclude = new Set(excludeTools)
  if (options.facts !== undefined && typeof options.facts !== 'boolean')
    throw new InvalidOptionError(
      'facts',
      `expected true or false, got ${describeValue(options.facts)}`,
    )
  return {
    name: 'clearToolResults',
    reason: 'cleared',
    options: { ...options, keep },
    apply(view) {
      const out = new Map<number, Message | null>()
      const total =
        view.rangeTokens(0, view.unitCount) + view.overhead.tools + view.overhead.priming
      if (total <= trigger) return out
      const exchanges: Unit[] = []
      for (let u = 0; u < view.unitCount; u++)
        if (view.kind(u) === 'exchange') exchanges.push(view.unit(u))
      const old = exchanges.slice(0, Math.max(0, exchanges.length - keep))
      let cleared = 0
      const over = total - trigger
      // Credentials any message holds are quoted from no result (a password the user gave,
      // bare in a later result): read once per call, each message's cached.
      let known: string[] | undefined
      const secrets = () => {
        known ??= view.messages.flatMap((m) => quotableFacts(m).secrets)
        return known
      }
      for (const unit of old) {
        // Enough has been cleared to get under the trigger and to make the batch worth it.
        if (cleared >= over && cleared >= clearAtLeast) break
        const ids = new Set<string>()
        for (let i = unit.start + 1; i < unit.end; i++) {
          const m = view.message(i)
          if (
            m.role !== 'tool' ||
            (m.toolName && exclude.has(m.toolName)) ||
            m.content === placeholder ||
            // A hosted tool's output goes out as its item, whole: clearing it would be
            // counted and not sent.
            isCarried(m)
          )
            continue
          // With recall offered, the placeholder names the message the original is asked back by.
          const note = recallNote(view, i)
          const stands = note ? `${placeholder} [${note}]` : placeholder
          const replaced: Message = {
            ...m,
            content: options.facts ? withFacts(stands, m, secrets()) : stands,
          }
          cleared += view.messageTokens(i) - view.counter.countMessage(replaced)
          out.set(i, replaced)
          ids.add(m.toolCallId)
        }
        // For OpenAI chat, repair moved the results' images and files to a user message after
        // them (in the exchange, or next to it once an earlier transform split it off): a
        // cleared result's go with it.
        for (const i of [unit.end - 1, unit.end]) {
          if (ids.size === 0 || i >= view.messages.length) break
          const m = view.message(i)
          const media = m.role === 'user' ? withoutMedia(m.content, ids, placeholder) : undefined
          if (!media) continue
          const replaced: Message = { ...m, content: media }
          cleared += view.messageTokens(i) - view.counter.countMessage(replaced)
          out.set(i, replaced)
          break
        }
        const call = view.message(unit.start)
        if (options.clearInputs && call.role === 'assistant' && call.toolCalls) {
          const only = Array.isArray(options.clearInputs) ? new Set(options.clearInputs) : undefined
          const calls = call.toolCalls.map((c) =>
            exclude.has(c.name) || (only && !only.has(c.name)) ? c : { ...c, arguments: '{}' },
          )
          const replaced: Message = { ...call, toolCalls: calls }
          cleared += view.messageTokens(unit.start) - view.counter.countMessage(replaced)
          out.set(unit.start, replaced)
        }
      }
      if (cleared < clearAtLeast) out.clear()
      return out
    },
  }
}

/**
 * The placeholder followed by the result's facts, quoted as the ledger quotes them
 * (`... Facts quoted from it: reservation_id="8JX2WO", ...`); no credential among them.
 */
function withFacts(placeholder: string, m: Message, known: readonly string[]): string {
  const facts = rankFacts(
    quotableFacts(m, undefined, known).facts.filter((f) => f.kind !== 'tool'),
  ).slice(0, FACTS_PER_RESULT)
  if (facts.length === 0) return placeholder
  return `${placeholder} Facts quoted from it: ${itemsText(facts.map((f) => ({ key: f.label, value: f.value })))}`
}

/**
 * A user message of moved media without the groups of the calls in `ids` (each group's line
 * is kept, saying it was cleared), or undefined when it holds none of them.
 */
function withoutMedia(
  content: Message['content'],
  ids: ReadonlySet<string>,
  placeholder: string,
): ContentPart[] | undefined {
  if (!Array.isArray(content)) return undefined
  const out: ContentPart[] = []
  let skipping = false
  let found = false
  for (const p of content) {
    if (p.type === 'text') {
      skipping = false
      for (const id of ids)
        if (isMovedMediaHeader(p.text, id)) {
          skipping = true
          found = true
          out.push({ ...p, text: `${p.text} ${placeholder}` })
          break
        }
      if (!skipping) out.push(p)
    } else if (!skipping) out.push(p)
  }
  return found ? out : undefined
}
