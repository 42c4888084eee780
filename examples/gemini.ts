// A Gemini history (thought parts, calls with thought signatures, response turns without
// ids), fitted to a budget: signatures go back byte for byte on the parts that carried them.
// Run: npx tsx examples/gemini.ts
import { readFileSync } from 'node:fs'
import { fit, fromGemini, toGemini, validate } from 'context-window'

const request = JSON.parse(
  readFileSync(new URL('./airline-booking.gemini.json', import.meta.url), 'utf8'),
)
// A call turn and its response turn are one unit: kept or dropped together.
const history = fromGemini(request)
console.log(`${request.contents.length} turns read as ${history.length} messages`)

for (const budget of [2500, 4000, 8000]) {
  // Counted by Gemini's estimate (o200k times its safety factor), images by Gemini's rule.
  const r = fit(history, { budget, model: 'gemini-2.5-pro', provider: 'gemini' })
  const { contents, systemInstruction } = toGemini(r.messages)
  const signed = contents.flatMap((c) => c.parts ?? []).filter((p) => p.thoughtSignature).length
  // valid: no error (a warning is a change the provider makes, not a refusal).
  const { valid } = validate(r.messages, { provider: 'gemini' })
  console.log(
    `budget ${budget}: ${contents.length} turns (first: ${contents[0]?.role}), ${signed} signed parts, ` +
      `system kept: ${systemInstruction !== undefined}, ${r.tokens.total} tokens, ` +
      `valid: ${valid}`,
  )
}
