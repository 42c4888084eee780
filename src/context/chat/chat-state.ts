import * as z from 'zod/mini'
import { InvalidInputError, InvalidStateError } from '../../errors.js'
import { type Message, messageSchema } from '../../messages/message.js'
import { type ToolInput, toolSchemas } from '../../providers/tool-shapes.js'
import { isPinned } from '../../strategies/pins.js'
import type { SummaryEntry } from '../../strategies/types.js'
import { contextSettingSchemas, cutOptionsOf } from '../options/option-schemas.js'
import type { DefaultStrategyOptions, Setup } from '../options/options.js'
import { type ChatContextOptions, providerFromFormat } from './chat-options.js'

export const STATE_TYPE = 'context-window/chat-context'
export const STATE_VERSION = 1

const stateSchema = z.object({
  type: z.literal(STATE_TYPE),
  version: z.int().check(z.positive()),
  messages: z.array(messageSchema),
  initialMessages: z._default(z.array(messageSchema), []),
  settings: z._default(
    z.object({
      strategy: z.optional(
        z.object({ name: z.string(), options: z.record(z.string(), z.unknown()) }),
      ),
      ...contextSettingSchemas,
    }),
    {},
  ),
  /** Summaries kept beside the messages (optional: version-1 states without them still load). */
  summaries: z.optional(
    z.array(
      z.object({
        replaces: z.tuple([z.int().check(z.nonnegative()), z.int().check(z.positive())]),
        message: messageSchema,
        tokens: z.optional(z.int().check(z.nonnegative())),
        anchor: z.optional(z.string()),
      }),
    ),
  ),
  /** A window the provider's rejection taught (optional: states without it still load). */
  limit: z.optional(z.object({ window: z.int().check(z.positive()) })),
})

/** Plain JSON that holds a context's messages and the settings to rebuild it. */
export type ChatContextState = z.input<typeof stateSchema>

/** What a context's state is made of, read from the context at the time it is saved. */
export interface StateParts {
  setup: Setup
  options: ChatContextOptions
  messages: Message[]
  initial: Message[]
  summaries: SummaryEntry[]
  learned: number | undefined
}

/** Versioned plain JSON: the history, the initial messages, the summaries and the settings. */
export function savedState(parts: StateParts): ChatContextState {
  const { setup, options } = parts
  const { strategy } = setup
  const settings: ChatContextState['settings'] = {}
  // The provider named, or brought by the format (whose rules the messages were added under);
  // none when neither: a state restored with a format of its own takes that format's rules.
  const provider = providerFromFormat(options)
  if (provider !== undefined) settings.provider = provider
  // The default strategy is saved as the default, so a state restored with a budget is
  // fitted as a default context is (tokenLimited, with its ledger), not as `unbounded`.
  if (setup.defaultStrategy)
    Object.assign(settings, cutOptionsOf(options as DefaultStrategyOptions))
  else
    settings.strategy = {
      name: strategy.name,
      options: JSON.parse(JSON.stringify(strategy.options ?? {})),
    }
  // The budget given (checked when the context was made), not the one the context fits to now:
  // a window learnt is saved apart (`limit`), and a strategy's own limit with its options.
  if (typeof options.budget === 'number' && Number.isFinite(options.budget))
    settings.budget = options.budget
  if (options.model) settings.model = options.model
  if (options.reserve !== undefined) settings.reserve = options.reserve
  // The tools given, as schemas: not the recall tool `recall` adds (a state restored without
  // recall must not send it), nor a strategy's own (its saved options hold them).
  const tools = toolSchemas(options.tools as readonly ToolInput[] | undefined)
  if (tools.length) settings.tools = structuredClone(tools)
  // What the caller gave, not what was resolved from it: a default context resolves no ledger
  // while it has no budget, and one restored with a budget must resolve its own. Given (off
  // too) or carried by a strategy object (`withLedger`, whose name does not say so), it is
  // saved as checked.
  const strategyLedger =
    typeof options.strategy === 'object' && options.strategy?.ledger !== undefined
  if (options.ledger !== undefined || strategyLedger)
    settings.ledger = structuredClone(setup.ledger)
  if (options.recall !== undefined && options.recall !== false)
    settings.recall = structuredClone(options.recall)
  return {
    type: STATE_TYPE,
    version: STATE_VERSION,
    // What the `pin` option chose is saved pinned: a context restored without it still sends it.
    messages: structuredClone(pinnedCopies(parts.messages, setup)),
    initialMessages: structuredClone(parts.initial),
    settings,
    ...(parts.summaries.length > 0 && { summaries: structuredClone(parts.summaries) }),
    ...(parts.learned !== undefined && { limit: { window: parts.learned } }),
  }
}

/** The messages, those the `pin` option chooses marked `pinned: true`. */
function pinnedCopies(messages: Message[], setup: Setup): Message[] {
  const { pin } = setup
  if (!pin) return messages
  return messages.map((m, i) =>
    m.pinned !== true && isPinned(m, i, pin) ? { ...m, pinned: true } : m,
  )
}

/**
 * A saved state, checked: one that fails the schema, or comes from a newer version than this
 * library reads, is refused with `InvalidStateError` (a bad message names its position).
 */
export function parseState(state: unknown): z.output<typeof stateSchema> {
  if (state && typeof state === 'object' && 'version' in state) {
    const version = (state as { version: unknown }).version
    if (typeof version === 'number' && version > STATE_VERSION) {
      throw new InvalidStateError(
        `state version ${version} is newer than this library reads (${STATE_VERSION}): upgrade context-window`,
      )
    }
  }
  const parsed = stateSchema.safeParse(state)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const path = issue?.path.join('.') ?? ''
    const where = /^messages\.(\d+)\.?(.*)$/.exec(path)
    if (where) {
      const err = new InvalidInputError(issue?.message ?? 'invalid', {
        source: 'state',
        index: Number(where[1]),
        field: where[2] || 'message',
      })
      throw new InvalidStateError(`invalid state: ${err.message}`)
    }
    throw new InvalidStateError(
      `invalid state: ${path ? `field ${path}: ` : ''}${issue?.message ?? 'not a state'}`,
    )
  }
  return parsed.data
}
