// An OpenAI Responses API history (reasoning items with encrypted_content, function calls
// and their outputs), fitted to a budget and sent back with store: false.
// Run: npx tsx examples/openai-responses.ts
import { readFileSync } from 'node:fs'
import { fit, fromOpenAIResponses, validate } from 'context-window'
import { encodeOpenAIResponses } from 'context-window/advanced'

const request = JSON.parse(
  readFileSync(new URL('./airline-booking.responses.json', import.meta.url), 'utf8'),
)
// Each run of model items (reasoning, then the calls or the message it produced) is one
// assistant message: a strategy keeps or drops a reasoning item with what follows it.
const history = fromOpenAIResponses(request)
console.log(`${request.input.length} items read as ${history.length} messages`)

for (const budget of [2500, 4000, 8000]) {
  const r = fit(history, { budget, model: 'gpt-5', provider: 'openai-responses' })
  // store: false, as the request says: reasoning goes back only with its encrypted_content.
  const { output, lost } = encodeOpenAIResponses(r.messages, { request: true, store: false })
  const input = (output as { input: { type?: string }[] }).input
  const reasoning = input.filter((x) => x.type === 'reasoning').length
  const { valid } = validate(r.messages, { provider: 'openai-responses', store: false })
  console.log(
    `budget ${budget}: ${input.length} items (${reasoning} reasoning), ${r.tokens.total} tokens, ` +
      `not sent: ${lost.length}, valid: ${valid}`,
  )
}
