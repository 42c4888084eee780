// The recall tool in an agent loop: a fit to a small budget leaves out the user's profile, and
// a loopback model (a stand-in for a real one) calls recall to get back the payment ids its
// next call needs, then makes that call. The recall exchange is a normal tool exchange: it is
// counted on the next fit and valid for every provider.
// Run: npx tsx examples/recall.ts
import { readFileSync } from 'node:fs'
import {
  executeRecall,
  fit,
  fromOpenAIChat,
  loadEncoding,
  type Message,
  recall,
  recallTool,
  validate,
} from 'context-window'
import { messageText } from 'context-window/advanced'

await loadEncoding('o200k_base')
const chat = JSON.parse(readFileSync(new URL('./airline-booking.json', import.meta.url), 'utf8'))
// The conversation up to the user's "proceed with the gift card and credit card".
const history: Message[] = fromOpenAIChat(chat).slice(0, 32)
// The ledger is off so the loop shows recall alone (with it on, the ledger often names these ids).
const options = { budget: 3000, recall: true, ledger: false } as const
const tools = [recallTool('openai')]

/**
 * A loopback model: it wants to call book_reservation, which needs the gift card's and the
 * credit card's payment ids. When what it was sent lacks them, it asks recall as a model
 * would: the tool's name and its argument names, not the ids it lacks.
 */
function model(sent: Message[]): Message {
  const text = sent.map(messageText).join('\n')
  const gift = /gift_card_\d+/.exec(text)?.[0]
  const card = /credit_card_\d+/.exec(text)?.[0]
  if (gift && card) {
    const payment = [
      { payment_id: gift, amount: 128 },
      { payment_id: card, amount: 247 },
    ]
    const args = JSON.stringify({ user_id: 'ivan_muller_7015', payment_methods: payment })
    return {
      role: 'assistant',
      toolCalls: [{ id: 'call_book', name: 'book_reservation', arguments: args }],
    }
  }
  const args = JSON.stringify({ query: 'book_reservation user_id payment_methods' })
  return {
    role: 'assistant',
    toolCalls: [{ id: `call_recall_${sent.length}`, name: 'recall', arguments: args }],
  }
}

console.log(`tool sent with the request: ${JSON.stringify(tools[0]).slice(0, 60)}...`)
for (let step = 1; step <= 3; step++) {
  const r = fit(history, options)
  // Each provider's request of the same history (Anthropic counts its tool-use prompt too).
  const valid = (['openai', 'anthropic', 'gemini', 'openai-responses'] as const).every(
    (provider) =>
      validate(fit(history, { ...options, provider, budget: 4500 }).messages, { provider }).valid,
  )
  console.log(
    `step ${step}: sent ${r.messages.length} of ${history.length} messages, ${r.tokens.total} tokens (tools ${r.tokens.tools}), valid for every provider: ${valid}`,
  )
  const reply = model(r.messages)
  const call = reply.role === 'assistant' ? reply.toolCalls?.[0] : undefined
  if (!call) break
  console.log(`step ${step}: the model calls ${call.name} ${call.arguments}`)
  if (call.name !== 'recall') break
  // The tool runs over the same fit the model was sent: `executeRecall` gives the tool
  // result text; `recall` (or `ChatContext#recall`) the same text with what it holds.
  const content = executeRecall(history, call.arguments, options, r)
  const result = recall(history, JSON.parse(call.arguments), options)
  console.log(
    `step ${step}: recall returned messages ${result.messages.join(', ')} (${result.tokens} tokens; also matching: ${result.more.length}), same text: ${result.text === content}`,
  )
  history.push(reply, { role: 'tool', toolCallId: call.id, toolName: 'recall', content })
}
