// For `npm run eval:counting -- --gemini`: each request whose count Google published
// (test/data/gemini-published), with Google's figure, the offline Gemma 3 counter's and the
// table-free estimate's, and their ratios to Google's.
import type { TokenCounter } from '../src/tokens/counter.js'
import { estimateCounter } from '../src/tokens/counters.js'
import { countRequest, framedTurns, geminiPublished } from '../test/gemini-published.js'

export function publishedReport(gemma: TokenCounter): void {
  const examples = geminiPublished()
  console.log(`\nGoogle's published counts (${examples.length} requests), per request:`)
  console.log(
    `${'id'.padEnd(34)}${'model'.padEnd(32)}turns  Google  Gemma 3 (ratio)  estimate (ratio)`,
  )
  const ratio = (a: number, b: number) => (a / b).toFixed(2)
  let google = 0
  let ours = 0
  let est = 0
  for (const e of examples) {
    const g = countRequest(gemma, e.request)
    const x = countRequest(estimateCounter({ model: e.model }), e.request)
    google += e.totalTokens
    ours += g
    est += x
    console.log(
      e.id.padEnd(34) +
        e.model.padEnd(32) +
        `${String(framedTurns(e.request)).padStart(5)}  ${String(e.totalTokens).padStart(6)}  ` +
        `${String(g).padStart(7)} (${ratio(g, e.totalTokens)})  ${String(x).padStart(8)} (${ratio(x, e.totalTokens)})`,
    )
  }
  console.log(
    `all: Google ${google}, Gemma 3 ${ours} (${ratio(ours, google)}), estimate ${est} (${ratio(est, google)})`,
  )
}
