// The LangChain hand-off of the strict consumer project, compiled with the same options but
// `skipLibCheck: true`: @langchain/core's and langsmith's own declarations do not compile
// under `exactOptionalPropertyTypes` (AIMessage, RunTree), whatever the code using them.

import * as lc from '@langchain/core/messages'
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { fit, fromLangChain } from 'context-window'
import { toLangChainMessages } from 'context-window/langchain'

export function langchain(): BaseMessage[] {
  const history = [
    new HumanMessage('hi'),
    new AIMessage({ content: '', tool_calls: [{ id: 't1', name: 'f', args: {} }] }),
    new ToolMessage({ tool_call_id: 't1', content: 'ok' }),
  ]
  return toLangChainMessages(fit(fromLangChain(history), { budget: 8000 }).messages, lc)
}
