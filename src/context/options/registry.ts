import type { OpenAICompatibleOptions } from '../../compress/openai-compatible.js'
import type { Summarizer } from '../../compress/summarizer.js'
import { SUMMARIZING_OPTIONS, type SummarizingOptions } from '../../compress/summarizing-options.js'
import { InvalidOptionError } from '../../errors.js'
import {
  asynchronousStrategy,
  closest,
  describeValue,
  requireArgument,
  unknownOption,
} from '../../options-check.js'
import { type BufferedOptions, buffered } from '../../strategies/buffered.js'
import { type HeadAndTailOptions, headAndTail } from '../../strategies/head-and-tail.js'
import {
  MOST_RELEVANT_OPTIONS,
  type MostRelevantOptions,
  namedMostRelevant,
} from '../../strategies/most-relevant.js'
import { type ScoreBasedOptions, scoreBased } from '../../strategies/score-based.js'
import {
  TOKEN_LIMITED_OPTIONS,
  type TokenLimitedOptions,
  tokenLimited,
} from '../../strategies/token-limited.js'
import type { Strategy } from '../../strategies/types.js'
import { unbounded } from '../../strategies/unbounded.js'
import { type UserTurnsOptions, userTurns } from '../../strategies/user-turns.js'

/** Options of every strategy that can be named by a string (configs, saved states, the CLI). */
export interface StrategyOptionsByName {
  unbounded: Record<never, never>
  buffered: BufferedOptions
  headAndTail: HeadAndTailOptions
  tokenLimited: TokenLimitedOptions
  userTurns: UserTurnsOptions
  scoreBased: ScoreBasedOptions
  mostRelevant: MostRelevantOptions
  summarizing: Omit<SummarizingOptions, 'summarizer'> & {
    /** A summarizer, `'extractive'`, or an OpenAI-compatible server's options. */
    summarizer?: Summarizer | 'extractive' | OpenAICompatibleOptions
  }
}

export type StrategyName = keyof StrategyOptionsByName

/**
 * Makes the strategies only an asynchronous caller runs, from plain options: summarizing,
 * and `mostRelevant` with an `embed` function. Given only by the callers that can run them
 * (`fitAsync`, `ChatContext`, `createStrategy`), so a synchronous `fit` bundle does not carry
 * the summarizers, the fact ledger or the embedding code.
 */
export type AsyncFactory = (
  name: 'summarizing' | 'mostRelevant',
  options: Record<string, unknown>,
) => Strategy

interface Entry {
  /** Every option the strategy reads: anything else given with its name is refused. */
  options: readonly string[]
  create(options: Record<string, unknown>, make?: AsyncFactory): Strategy
}

const scoreKeys = ['limit', 'model', 'keepRate', 'neighbours', 'partial'] as const

const builtIn: { [K in StrategyName]: Entry } = {
  unbounded: { options: [], create: () => unbounded() },
  buffered: { options: ['size'], create: (o) => buffered(o as unknown as BufferedOptions) },
  headAndTail: {
    options: ['head', 'tail', 'placeholder'],
    create: (o) => headAndTail(o as unknown as HeadAndTailOptions),
  },
  tokenLimited: {
    options: TOKEN_LIMITED_OPTIONS,
    create: (o) => tokenLimited(o as TokenLimitedOptions),
  },
  userTurns: {
    options: ['maxTurns', 'removeToolExchanges'],
    create: (o) => userTurns(o as unknown as UserTurnsOptions),
  },
  scoreBased: {
    options: [...scoreKeys, 'scorer'],
    create: (o) => scoreBased(o as ScoreBasedOptions),
  },
  mostRelevant: {
    options: MOST_RELEVANT_OPTIONS,
    create: (o, make) =>
      o.embed && make ? make('mostRelevant', o) : namedMostRelevant(o as MostRelevantOptions),
  },
  summarizing: {
    options: SUMMARIZING_OPTIONS,
    create: (o, make) => {
      if (!make) throw asynchronousStrategy('summarizing')
      return make('summarizing', o)
    },
  },
}

const added = new Map<string, Entry>()

/**
 * Adds a strategy under a name, so configs, saved states and the CLI can name it.
 * `options` lists every option it reads (any other is refused with a typed error).
 */
export function registerStrategy(
  name: string,
  factory: (options: never) => Strategy,
  options: readonly string[] = [],
): void {
  requireArgument(typeof name === 'string', 'registerStrategy', 'name', 'a strategy name', name)
  requireArgument(
    typeof factory === 'function',
    'registerStrategy',
    'factory',
    'a function',
    factory,
  )
  requireArgument(
    Array.isArray(options) && options.every((o) => typeof o === 'string'),
    'registerStrategy',
    'options',
    'a list of option names',
    options,
  )
  if (Object.hasOwn(builtIn, name))
    throw new InvalidOptionError('strategy', `${describeValue(name)} is a built-in strategy`)
  added.set(name, { options, create: factory as (o: Record<string, unknown>) => Strategy })
}

export function strategyNames(): string[] {
  return [...Object.keys(builtIn), ...added.keys()]
}

function entry(name: string): Entry {
  const found = Object.hasOwn(builtIn, name) ? builtIn[name as StrategyName] : added.get(name)
  if (!found) {
    const near = closest(name, strategyNames())
    throw new InvalidOptionError(
      'strategy',
      `unknown strategy ${describeValue(name)}${near ? ` (did you mean ${JSON.stringify(near)}?)` : ''}; known: ${strategyNames().join(', ')}`,
    )
  }
  return found
}

/** The options a named strategy reads. */
export function strategyOptionNames(name: string): readonly string[] {
  return entry(name).options
}

/**
 * A strategy from its name and options (an allow-list: unknown names are refused). Options
 * it does not read are refused too, naming the closest one it does. Without `make`, the
 * summarizing strategy is refused as asynchronous (what a synchronous `fit` says of it), and
 * so is an `embed` function given to `mostRelevant` by name.
 */
export function makeStrategy(
  name: string,
  options: Record<string, unknown> = {},
  make?: AsyncFactory,
): Strategy {
  const e = entry(name)
  const picked: Record<string, unknown> = {}
  for (const key of Object.keys(options)) {
    if (!e.options.includes(key)) throw unknownOption(key, e.options, `strategy ${name}`)
    if (options[key] !== undefined) picked[key] = options[key]
  }
  return e.create(picked, make)
}
