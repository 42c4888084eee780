import { bytes, float64, int32 } from '../src/context/column.js'
import { resolveSetup } from '../src/context/options/options.js'
import { viewSettings } from '../src/context/prepare.js'
import { kindCode } from '../src/context/unit-kinds.js'
import { createView } from '../src/context/view.js'
import type { Message } from '../src/messages/message.js'
import type { View } from '../src/strategies/types.js'

/** A view with one unit per message (the preamble its own), built through the library's view: what a scorer reads. */
export function oneUnitView(messages: Message[], query?: string): View {
  const tokens = float64()
  const unitStart = int32()
  const unitEnd = int32()
  const unitKind = bytes()
  const unitPrefix = float64()
  unitPrefix.push(0)
  let newestUser = -1
  messages.forEach((m, i) => {
    tokens.push(0)
    unitStart.push(i)
    unitEnd.push(i + 1)
    unitKind.push(kindCode[m.role === 'system' && i === 0 ? 'system' : 'message'])
    unitPrefix.push(0)
    if (m.role === 'user') newestUser = i
  })
  return createView(
    { messages, tokens, unitStart, unitEnd, unitKind, unitPrefix, newestUser, exchanges: 0 },
    { ...viewSettings(resolveSetup({})), query },
  )
}
