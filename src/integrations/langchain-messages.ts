import { toLangChain } from '../formats/langchain.js'
import type { Message } from '../messages/message.js'
import { requireArgument } from '../options-check.js'
import { fieldsOf } from '../providers/codec-kit.js'

/**
 * LangChain's four message classes, as `@langchain/core/messages` (and `langchain`) export
 * them: pass the module itself, `import * as lc from '@langchain/core/messages'`.
 */
export interface LangChainMessageClasses<Human, AI, System, Tool> {
  HumanMessage: new (fields: never) => Human
  AIMessage: new (fields: never) => AI
  SystemMessage: new (fields: never) => System
  ToolMessage: new (fields: never) => Tool
}

/** The class of each role. */
const CLASS_OF_ROLE = {
  user: 'HumanMessage',
  assistant: 'AIMessage',
  system: 'SystemMessage',
  tool: 'ToolMessage',
} as const

/**
 * Messages as LangChain message instances (`BaseMessage`s: `HumanMessage`, `AIMessage` with
 * its `tool_calls`, `SystemMessage`, `ToolMessage`), for a model's `invoke` or an agent's
 * state. `toLangChain` gives their serialized form (`messages_to_dict`, plain JSON); this
 * builds the instances from it with the classes given, so the library itself imports no
 * LangChain package:
 *
 *     import * as lc from '@langchain/core/messages'
 *     const messages = toLangChainMessages(fit(history, { budget: 8000 }).messages, lc)
 */
export function toLangChainMessages<Human, AI, System, Tool>(
  messages: readonly Message[],
  classes: LangChainMessageClasses<Human, AI, System, Tool>,
): (Human | AI | System | Tool)[] {
  const names = Object.values(CLASS_OF_ROLE)
  requireArgument(
    !!classes &&
      typeof classes === 'object' &&
      names.every((n) => typeof fieldsOf(classes)[n] === 'function'),
    'toLangChainMessages',
    'classes',
    "LangChain's message classes (import * as lc from '@langchain/core/messages')",
    classes,
  )
  const wire = toLangChain(messages)
  return messages.map(({ role }, i) => {
    // The constructor form (a message read from an instance) holds its fields in kwargs.
    const item = fieldsOf(wire[i])
    const fields = fieldsOf(item.lc === 1 ? item.kwargs : item.data)
    const Class = classes[CLASS_OF_ROLE[role]] as unknown as new (
      fields: object,
    ) => Human | AI | System | Tool
    return new Class(fields)
  })
}
