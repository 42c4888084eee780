import { InvalidInputError } from '../errors.js'
import { messageIssue } from '../messages/check.js'
import type { Message } from '../messages/message.js'

const checked = new WeakSet<object>()

/** Checks a message once (a message object seen before is not checked again). */
export function checkMessage(m: unknown, index: number): asserts m is Message {
  if (m && typeof m === 'object' && checked.has(m)) return
  const issue = messageIssue(m)
  if (issue) {
    throw new InvalidInputError(issue.message, {
      index,
      field: issue.path.length ? issue.path.join('.') : 'role',
    })
  }
  checked.add(m as object)
}

/** A list of messages, or a typed error saying it is not one. */
export function checkList(messages: unknown): asserts messages is readonly unknown[] {
  if (!Array.isArray(messages))
    throw new InvalidInputError('expected a list of messages', { field: 'messages' })
}

/**
 * A history to fit, or a typed error: an empty one has nothing to send, and returning an
 * empty request would look like success.
 */
export function checkHistory(messages: unknown): asserts messages is readonly unknown[] {
  checkList(messages)
  if (messages.length === 0)
    throw new InvalidInputError('no messages: an empty history has nothing to fit', {
      field: 'messages',
    })
}
