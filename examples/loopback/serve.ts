// The loopback provider on its own, for code of yours (or the README's blocks) without a key:
// it prints the variables that point the OpenAI, Anthropic and Gemini SDKs at it, and answers
// until stopped (Ctrl-C). `--window N` sets its model's window (default 128,000 tokens).
// Run: npx tsx examples/loopback/serve.ts
import { parseArgs } from 'node:util'
import { startLoopbackProvider } from './server.js'

const { values } = parseArgs({ options: { window: { type: 'string', default: '128000' } } })
const window = Number(values.window)
if (!Number.isSafeInteger(window) || window < 1) {
  console.error(`--window: expected a whole number of tokens, got ${JSON.stringify(values.window)}`)
  process.exit(2)
}
const loopback = await startLoopbackProvider({ window })
console.log(
  `loopback provider at ${loopback.root}, a model with a ${window.toLocaleString('en-US')}-token window. In another shell:`,
)
console.log(
  `export OPENAI_BASE_URL=${loopback.url} OPENAI_API_KEY=loopback ANTHROPIC_BASE_URL=${loopback.root} ANTHROPIC_API_KEY=loopback GOOGLE_GEMINI_BASE_URL=${loopback.root} GEMINI_API_KEY=loopback`,
)
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    console.log(
      `(${loopback.requests.length} requests, ${loopback.rejections} refused as too long)`,
    )
    void loopback.close().then(() => process.exit(0))
  })
