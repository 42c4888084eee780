import * as z from 'zod/mini'
import { $ZodError } from 'zod/v4/core'
import { ChatContext, type ContextFormat } from '../context/chat/chat-context.js'
import type { FitOptions } from '../context/fit.js'
import { createStrategy } from '../context/options/create-strategy.js'
import {
  contextSettingSchemas,
  contextSettingsOf,
  cutOptionSchemas,
  ledgerOptionsSchema,
} from '../context/options/option-schemas.js'
import { strategyNames } from '../context/options/registry.js'
import { ContextWindowError, InvalidOptionError, InvalidStateError } from '../errors.js'
import { type Message, messageSchema, toolSchemaSchema } from '../messages/message.js'
import { describeValue, requireArgument } from '../options-check.js'
import { withLedger } from '../strategies/ledger.js'
import type { Strategy, Transform } from '../strategies/types.js'
import { AUTOGEN, AUTOGEN_SHORT, loadAutoGen, snakeToCamel } from './autogen-config.js'
import { createTransform, transformNames } from './transforms.js'

/** A configurable thing as plain JSON, in the shape of AutoGen's component model. */
export interface ComponentModel {
  provider: string
  componentType: 'chat_completion_context' | 'strategy' | 'transform'
  /** Version of this envelope. */
  version: number
  /** Version of the component's config; older ones are migrated, newer ones refused. */
  componentVersion: number
  description?: string
  label?: string
  config: Record<string, unknown>
}

export const COMPONENT_VERSION = 1
const PREFIX = 'context_window'

const posInt = () => z.int().check(z.positive())
const nonNegInt = () => z.int().check(z.nonnegative())

export const strategyConfigSchemas: Record<string, z.ZodMiniType> = {
  unbounded: z.strictObject({}),
  buffered: z.strictObject({ size: posInt() }),
  headAndTail: z.strictObject({
    head: nonNegInt(),
    tail: nonNegInt(),
    placeholder: z.optional(z.string()),
  }),
  tokenLimited: z.strictObject({
    limit: z.optional(posInt()),
    model: z.optional(z.string()),
    tools: z.optional(z.array(toolSchemaSchema)),
    reserve: z.optional(nonNegInt()),
    ...cutOptionSchemas,
  }),
  userTurns: z.strictObject({
    maxTurns: posInt(),
    removeToolExchanges: z.optional(z.boolean()),
  }),
}

const anyComponent: z.ZodMiniType<ComponentModel> = z.lazy(
  () => envelopeSchema,
) as unknown as z.ZodMiniType<ComponentModel>

export const contextConfigSchema = z.strictObject({
  strategy: z.optional(anyComponent),
  transforms: z.optional(z.array(anyComponent)),
  initialMessages: z.optional(z.array(messageSchema)),
  ...contextSettingSchemas,
})

const envelopeSchema = z.object({
  provider: z.string().check(z.minLength(1)),
  componentType: z.optional(z.enum(['chat_completion_context', 'strategy', 'transform'])),
  version: z._default(posInt(), 1),
  componentVersion: z._default(posInt(), 1),
  description: z.optional(z.string()),
  label: z.optional(z.string()),
  config: z._default(z.record(z.string(), z.unknown()), {}),
})

/** JSON Schema of a component's `config`, by provider name. */
export function componentJsonSchema(provider: string): Record<string, unknown> {
  requireArgument(
    typeof provider === 'string',
    'componentJsonSchema',
    'provider',
    'a component provider name',
    provider,
  )
  if (provider === `${PREFIX}.ChatContext`)
    return z.toJSONSchema(contextConfigSchema, { unrepresentable: 'any' })
  const name = provider.replace(`${PREFIX}.strategies.`, '')
  const schema = strategyConfigSchemas[name]
  if (schema) return z.toJSONSchema(schema)
  throw new InvalidStateError(`no JSON schema for component ${describeValue(provider)}`)
}

/** The component JSON of a context, a strategy or a transform. */
export function dumpComponent(
  thing: ChatContext<ContextFormat> | Strategy | Transform,
): ComponentModel {
  if (thing === null || typeof thing !== 'object')
    throw new InvalidOptionError(
      'component',
      `expected a ChatContext, a strategy or a transform, got ${thing === null ? 'null' : typeof thing}`,
    )
  if (thing instanceof ChatContext) {
    const state = thing.saveState()
    const s = state.settings ?? {}
    const config: Record<string, unknown> = {}
    // The default strategy stays the default (with its ledger rule), as in a saved state.
    if (s.strategy !== undefined) config.strategy = dumpComponent(thing.strategy)
    const transforms = thing.transforms
    if (transforms.length) config.transforms = transforms.map((t) => dumpComponent(t))
    Object.assign(config, contextSettingsOf(s))
    if (state.initialMessages?.length) config.initialMessages = state.initialMessages
    return envelope(
      `${PREFIX}.ChatContext`,
      'chat_completion_context',
      config,
      'A conversation history and the policy that fits it to the context window.',
    )
  }
  const isTransform = !('budgetAware' in thing)
  const kind = isTransform ? 'transforms' : 'strategies'
  const config = JSON.parse(JSON.stringify(thing.options ?? {}))
  // A strategy with a ledger (`withLedger`) keeps it.
  if ('budgetAware' in thing && thing.ledger) config.ledger = { ...thing.ledger }
  return envelope(`${PREFIX}.${kind}.${thing.name}`, isTransform ? 'transform' : 'strategy', config)
}

function envelope(
  provider: string,
  componentType: ComponentModel['componentType'],
  config: Record<string, unknown>,
  description?: string,
): ComponentModel {
  return {
    provider,
    componentType,
    version: 1,
    componentVersion: COMPONENT_VERSION,
    ...(description && { description }),
    label: provider.slice(provider.lastIndexOf('.') + 1),
    config,
  }
}

/** Config migrations by component: from a version to the next. */
const migrations: Record<
  string,
  Record<number, (config: Record<string, unknown>) => Record<string, unknown>>
> = {}

/**
 * Builds the component a JSON describes: ours (`context_window.*`) or AutoGen's
 * `autogen_core.model_context.*` contexts with their own config keys. Providers come from
 * an allow-list; a user-given string never reaches `import()`.
 */
export function loadComponent(json: unknown): ChatContext | Strategy | Transform {
  const raw = snakeToCamel(json)
  const parsed = envelopeSchema.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new InvalidStateError(
      `invalid component: field ${issue?.path.join('.') || 'provider'}: ${issue?.message}`,
    )
  }
  const c = parsed.data
  if (c.version > 1)
    throw new InvalidStateError(
      `component envelope version ${c.version} is newer than this library reads (1)`,
    )
  const config = migrate(c.provider, c.componentVersion, c.config)
  try {
    if (c.provider.startsWith(AUTOGEN) || AUTOGEN_SHORT.has(c.provider))
      return loadAutoGen(c.provider, config)
    if (c.provider === `${PREFIX}.ChatContext`) return loadContext(config)
    const [, kind, name] =
      /^context_window\.(strategies|transforms)\.([A-Za-z]+)$/.exec(c.provider) ?? []
    if (kind === 'strategies' && name && strategyNames().includes(name)) {
      const { ledger, ...own } = config
      strategyConfigSchemas[name]?.parse(own)
      const strategy = createStrategy(name, own)
      return ledger === undefined
        ? strategy
        : withLedger(strategy, ledgerOptionsSchema.parse(ledger))
    }
    if (kind === 'transforms' && name && transformNames().includes(name))
      return createTransform(name, config)
  } catch (e) {
    if (e instanceof $ZodError) {
      const issue = e.issues[0]
      throw new InvalidStateError(
        `component ${c.provider}: config field ${issue?.path.join('.')}: ${issue?.message}`,
      )
    }
    if (e instanceof ContextWindowError && !(e instanceof InvalidStateError)) {
      throw new InvalidStateError(`component ${c.provider}: ${e.message}`)
    }
    throw e
  }
  throw new InvalidStateError(
    `unknown component provider ${JSON.stringify(c.provider)} (known: context_window.ChatContext, context_window.strategies.{${strategyNames().join(',')}}, context_window.transforms.{${transformNames().join(',')}}, ${AUTOGEN}{Unbounded,Buffered,HeadAndTail,TokenLimited}ChatCompletionContext)`,
  )
}

function migrate(
  provider: string,
  from: number,
  config: Record<string, unknown>,
): Record<string, unknown> {
  if (from > COMPONENT_VERSION) {
    throw new InvalidStateError(
      `component ${provider} version ${from} is newer than this library reads (${COMPONENT_VERSION}): upgrade context-window`,
    )
  }
  let out = config
  for (let v = from; v < COMPONENT_VERSION; v++) {
    const step = migrations[provider]?.[v]
    if (!step)
      throw new InvalidStateError(
        `component ${provider} version ${v} cannot be migrated to ${COMPONENT_VERSION}`,
      )
    out = step(out)
  }
  return out
}

function loadContext(config: Record<string, unknown>): ChatContext {
  const c = contextConfigSchema.parse(config)
  const strategy = c.strategy ? loadComponent(c.strategy) : undefined
  if (strategy && !('select' in strategy))
    throw new InvalidStateError('context config: strategy must be a strategy component')
  const transforms = (c.transforms ?? []).map((t) => {
    const loaded = loadComponent(t)
    if (!('apply' in loaded))
      throw new InvalidStateError('context config: transforms must be transform components')
    return loaded
  })
  const options: FitOptions & { initialMessages?: Message[] } = {
    ...(strategy && { strategy }),
    ...(transforms.length && { transforms }),
    ...(c.initialMessages !== undefined && { initialMessages: c.initialMessages }),
    // How the default strategy cuts is read only when there is no strategy of the config's own.
    ...contextSettingsOf(c, !strategy),
  }
  return new ChatContext(options)
}
