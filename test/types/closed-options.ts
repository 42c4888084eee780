// Compiled by `npm run typecheck` (never run): each `@ts-expect-error` below fails the build
// if the line after it compiles, so a misspelt option can never again be silently ignored.
import {
  buffered,
  ChatContext,
  fit,
  fitAsync,
  headAndTail,
  type Message,
  mostRelevant,
  scoreBased,
  summarizing,
  tokenLimited,
  userTurns,
} from 'context-window'
import { relevance, unbounded } from 'context-window/advanced'

const h: Message[] = [{ role: 'user', content: 'hi' }]

// What is spelt right compiles.
fit(h, { budget: 300 })
fit(h, { budget: 300, stable: true, dropFrom: 'middle' })
fit(h, { strategy: 'buffered', size: 3 })
fit(h, { strategy: 'headAndTail', head: 1, tail: 2, budget: 500 })
fit(h, { strategy: 'tokenLimited', limit: 500, dropFrom: 'middle' })
fit(h, { strategy: 'userTurns', maxTurns: 2 })
fit(h, { strategy: 'scoreBased', keepRate: 0.8 })
fit(h, { strategy: 'mostRelevant', query: 'refund', budget: 500 })
fit(h, { strategy: tokenLimited({ limit: 500 }), provider: 'anthropic' })
fit(h, { strategy: scoreBased({ scorer: relevance({ query: 'refund' }) }) })
void fitAsync(h, { strategy: 'summarizing', trigger: 0.5, budget: 500 })
new ChatContext({ model: 'gpt-4o', initialMessages: h })
new ChatContext({ strategy: 'buffered', size: 3, store: undefined })

// fit: a misspelt common option.
// @ts-expect-error budjet is not an option
fit(h, { budjet: 300 })
// @ts-expect-error modle is not an option
fit(h, { modle: 'gpt-4o' })
// @ts-expect-error reserv is not an option
fit(h, { budget: 300, reserv: 10 })
// @ts-expect-error a scorer is not a strategy
fit(h, { strategy: relevance({ query: 'refund' }) })
// @ts-expect-error 'relevance' names a scorer, not a strategy
fit(h, { strategy: 'relevance' })

// fit: each named strategy takes exactly its own options.
// @ts-expect-error sise
fit(h, { strategy: 'buffered', sise: 3 })
// @ts-expect-error head belongs to headAndTail
fit(h, { strategy: 'buffered', size: 3, head: 1 })
// @ts-expect-error taill
fit(h, { strategy: 'headAndTail', head: 1, taill: 2 })
// @ts-expect-error limt
fit(h, { strategy: 'tokenLimited', limt: 500 })
// @ts-expect-error maxTurn
fit(h, { strategy: 'userTurns', maxTurn: 2 })
// @ts-expect-error keeprate
fit(h, { strategy: 'scoreBased', keeprate: 0.8 })
// @ts-expect-error scorer is scoreBased's, mostRelevant has its own
fit(h, { strategy: 'mostRelevant', scorer: relevance() })
// @ts-expect-error size is not an option of unbounded
fit(h, { strategy: 'unbounded', size: 3 })
// @ts-expect-error triger
void fitAsync(h, { strategy: 'summarizing', triger: 0.5 })

// ChatContext: the same options, plus its own.
// @ts-expect-error modle
new ChatContext({ modle: 'gpt-4o' })
// @ts-expect-error initialMessage
new ChatContext({ initialMessage: h })
// @ts-expect-error sise
new ChatContext({ strategy: 'buffered', sise: 3 })

// Each strategy's factory.
// @ts-expect-error sise
buffered({ sise: 3 })
// @ts-expect-error taill
headAndTail({ head: 1, taill: 2 })
// @ts-expect-error limt
tokenLimited({ limt: 500 })
// @ts-expect-error maxTurn
userTurns({ maxTurn: 2 })
// @ts-expect-error keeprate
scoreBased({ keeprate: 0.8 })
// @ts-expect-error querry
mostRelevant({ querry: 'refund' })
// @ts-expect-error leaveLast
summarizing({ leaveLast: 2 })
// @ts-expect-error unbounded takes no options
unbounded({ size: 3 })
