import { InvalidInputError } from '../errors.js'
import { type Message, messageSchema } from '../messages/message.js'

const checked = new WeakSet<object>()

/** Schema-checks a message once (a message object seen before is not checked again). */
export function checkMessage(m: unknown, index: number): asserts m is Message {
  if (m && typeof m === 'object' && checked.has(m)) return
  const parsed = messageSchema.safeParse(m)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new InvalidInputError(issue?.message ?? 'invalid message', {
      index,
      field: issue?.path.length ? issue.path.join('.') : 'role',
    })
  }
  checked.add(m as object)
}

/** A list of messages, or a typed error saying it is not one. */
export function checkList(messages: unknown): asserts messages is readonly unknown[] {
  if (!Array.isArray(messages))
    throw new InvalidInputError('expected a list of messages', { field: 'messages' })
}
