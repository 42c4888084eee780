/**
 * Every flag of the command, defined once: what it takes, which commands read it, and which
 * strategies or flags it belongs with. The parser's options, each command's list, the checks
 * that refuse a flag given with the wrong strategy, and the help's list of a strategy's own
 * flags all come from here (`test` holds every help text to name its command's flags).
 */

export type Command = 'fit' | 'count' | 'validate'

interface Flag {
  type: 'string' | 'boolean'
  short?: string
  /** The commands that read it. */
  commands: readonly Command[]
  /** A strategy's own flag: given with another strategy, it is refused. */
  strategies?: readonly string[]
  /** Strategies that cannot run without it. */
  requiredBy?: readonly string[]
  /** A flag that only means something beside this one. */
  needs?: string
}

const ALL: readonly Command[] = ['fit', 'count', 'validate']
const FIT: readonly Command[] = ['fit']
const SUMMARIZING = ['summarizing']

export const FLAGS = {
  help: { type: 'boolean', short: 'h', commands: ALL },
  example: { type: 'boolean', commands: ALL },
  json: { type: 'boolean', commands: ALL },
  model: { type: 'string', commands: ['fit', 'count'] },
  window: { type: 'string', commands: ['fit', 'count'] },
  'max-output': { type: 'string', commands: ['fit', 'count'] },
  tools: { type: 'string', commands: ['fit', 'count'] },
  budget: { type: 'string', commands: FIT },
  reserve: { type: 'string', commands: FIT },
  strategy: { type: 'string', commands: FIT },
  size: { type: 'string', commands: FIT, strategies: ['buffered'], requiredBy: ['buffered'] },
  head: {
    type: 'string',
    commands: FIT,
    strategies: ['headAndTail'],
    requiredBy: ['headAndTail'],
  },
  tail: {
    type: 'string',
    commands: FIT,
    strategies: ['headAndTail'],
    requiredBy: ['headAndTail'],
  },
  turns: { type: 'string', commands: FIT, strategies: ['userTurns'], requiredBy: ['userTurns'] },
  'drop-from': { type: 'string', commands: FIT, strategies: ['tokenLimited'] },
  query: { type: 'string', commands: FIT, strategies: ['scoreBased', 'mostRelevant'] },
  ledger: { type: 'boolean', commands: FIT },
  'no-ledger': { type: 'boolean', commands: FIT },
  pin: { type: 'string', commands: FIT },
  provider: { type: 'string', commands: ['fit', 'validate'] },
  out: { type: 'string', commands: FIT },
  format: { type: 'string', commands: ALL },
  report: { type: 'string', commands: FIT },
  'out-dir': { type: 'string', commands: FIT },
  'clear-tool-results': { type: 'string', commands: FIT },
  'max-tokens-per-message': { type: 'string', commands: FIT },
  'clear-thinking': { type: 'string', commands: FIT },
  native: { type: 'string', commands: FIT },
  'compact-at': { type: 'string', commands: FIT, needs: 'native' },
  'provider-response': { type: 'string', commands: FIT, needs: 'native' },
  summarizer: { type: 'string', commands: FIT, strategies: SUMMARIZING },
  'base-url': { type: 'string', commands: FIT, strategies: SUMMARIZING },
  'api-key-env': { type: 'string', commands: FIT, strategies: SUMMARIZING },
  'summary-model': { type: 'string', commands: FIT, strategies: SUMMARIZING },
  trigger: { type: 'string', commands: FIT, strategies: SUMMARIZING },
  'leave-last': { type: 'string', commands: FIT, strategies: SUMMARIZING },
  quiet: { type: 'boolean', short: 'q', commands: ALL },
} as const satisfies Record<string, Flag>

export type FlagName = keyof typeof FLAGS

export const isFlag = (name: string): name is FlagName => Object.hasOwn(FLAGS, name)

const entries: readonly [FlagName, Flag][] = Object.keys(FLAGS)
  .filter(isFlag)
  .map((name) => [name, FLAGS[name]])

/** The parser's options (`node:util` `parseArgs`): each flag's type and short name. */
export const PARSER_OPTIONS: Record<string, { type: 'string' | 'boolean'; short?: string }> = {}
for (const [name, f] of entries)
  PARSER_OPTIONS[name] = f.short === undefined ? { type: f.type } : { type: f.type, short: f.short }

/** The flags each command reads; any other is refused by name, never ignored. */
export function commandFlags(command: string): FlagName[] {
  return entries.filter(([, f]) => f.commands.some((c) => c === command)).map(([n]) => n)
}

/** The flag a name (or, `short`, a short name) stands for. */
export function flagNamed(name: string, short: boolean): FlagName | undefined {
  if (!short) return isFlag(name) ? name : undefined
  return entries.find(([, f]) => f.short === name)?.[0]
}

/** Whether a flag takes a value. */
export const takesValue = (name: FlagName): boolean => FLAGS[name].type === 'string'

/** Flags that belong to some strategies only, with those strategies. */
export const STRATEGY_FLAGS: { flag: FlagName; strategies: readonly string[] }[] = []
/** Flags that only mean something beside another, with that other. */
export const NEEDS_FLAG: { flag: FlagName; needs: string }[] = []
for (const [flag, f] of entries) {
  if (f.strategies) STRATEGY_FLAGS.push({ flag, strategies: f.strategies })
  if (f.needs) NEEDS_FLAG.push({ flag, needs: f.needs })
}

/** The flags a strategy cannot run without. */
export function requiredFlags(strategy: string): FlagName[] {
  return entries.filter(([, f]) => f.requiredBy?.includes(strategy)).map(([n]) => n)
}
