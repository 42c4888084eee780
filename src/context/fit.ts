import { InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import type { Provider } from '../messages/validate.js'
import type { TokenCounter } from '../tokens/counter.js'
import { assemble } from './assemble.js'
import { checkList } from './check.js'
import { HistoryIndex } from './history-index.js'
import { type FitOptions, resolveSetup } from './options.js'
import { prepare } from './prepare.js'
import type { FitResult } from './result.js'

export type { FitOptions } from './options.js'
export type { Fate, FitResult, MessageFate } from './result.js'

/**
 * Indexes of arrays seen before, by their first message. An agent loop that pushes to one
 * array, or builds each call's array from the same message objects, gets its index back and
 * pays only for the messages that are new.
 */
const seen = new WeakMap<object, HistoryIndex[]>()
/** Indexes kept per first message (one per counter and provider in practice). */
const PER_HEAD = 4

/**
 * The index of `messages`: one seen before when its messages are the same objects (then only
 * what was appended since is taken), else a new one. Messages are read as they are now: an
 * object edited in place after a fit is not seen again (pass a new object instead).
 */
export function indexOf(
  messages: readonly Message[],
  counter: TokenCounter,
  provider: Provider,
): HistoryIndex {
  checkList(messages)
  const head = messages[0]
  if (head === null || typeof head !== 'object') {
    const index = new HistoryIndex(counter, provider)
    index.pushAll(messages)
    return index
  }
  const list = seen.get(head) ?? []
  const k = list.findIndex((x) => x.counter === counter && x.provider === provider)
  let index = list[k]
  if (!index?.isPrefixOf(messages)) {
    index = new HistoryIndex(counter, provider)
    if (k >= 0) list[k] = index
    else {
      if (list.length >= PER_HEAD) list.shift()
      list.push(index)
    }
    seen.set(head, list)
  }
  // A bad message leaves the index holding the good ones before it: the next call resumes there.
  index.pushAll(messages, index.length)
  return index
}

/**
 * Fits a history to a budget: the messages to send and an account of every input message.
 * The input is never modified and the output shares no object with it.
 */
export function fit(messages: readonly Message[], options: FitOptions = {}): FitResult {
  const setup = resolveSetup(options)
  if (setup.strategy.async) throw asyncError(setup.strategy.name)
  const prepared = prepare(indexOf(messages, setup.counter, setup.provider), setup)
  const plan = setup.strategy.select(prepared.view)
  if (plan instanceof Promise) throw asyncError(setup.strategy.name)
  return assemble(prepared, plan, setup)
}

/** `fit` for strategies that call out (summarizers): same result, awaited. */
export async function fitAsync(
  messages: readonly Message[],
  options: FitOptions = {},
): Promise<FitResult> {
  const setup = resolveSetup(options)
  const index = indexOf(messages, setup.counter, setup.provider)
  const prepared = prepare(index, setup, { frozen: setup.strategy.async === true })
  return assemble(prepared, await setup.strategy.select(prepared.view), setup)
}

function asyncError(name: string): InvalidOptionError {
  return new InvalidOptionError('strategy', `${name} is asynchronous: use fitAsync`)
}
