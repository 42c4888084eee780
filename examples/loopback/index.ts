/**
 * What the examples talk to. With a provider's key in the environment, the provider itself;
 * without, the loopback provider of `server.ts`: a server on 127.0.0.1 that answers OpenAI
 * chat completions and Responses, Anthropic messages and Gemini generateContent as those
 * APIs do, for a model whose window (4,200 tokens) is far smaller than the model table's, so
 * the examples meet a real "too long" rejection offline. It is started in this process, ends
 * with it, and points the SDKs' own environment variables at itself (the examples' code is
 * what it would be against the real provider).
 */
import { type LoopbackProvider, startLoopbackProvider } from './server.js'

export { type LoopbackOptions, type LoopbackProvider, startLoopbackProvider } from './server.js'

/** The window of the model the loopback provider serves, in tokens. */
export const LOOPBACK_WINDOW = 4200

type ProviderName = 'openai' | 'anthropic' | 'gemini'

/** Each provider's key, and where its SDK reads its base URL from the environment. */
const ENV: Record<ProviderName, { label: string; keys: string[]; baseURL: string; v1: boolean }> = {
  openai: { label: 'OpenAI', keys: ['OPENAI_API_KEY'], baseURL: 'OPENAI_BASE_URL', v1: true },
  anthropic: {
    label: 'Anthropic',
    keys: ['ANTHROPIC_API_KEY'],
    baseURL: 'ANTHROPIC_BASE_URL',
    v1: false,
  },
  gemini: {
    label: 'Gemini',
    keys: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    baseURL: 'GOOGLE_GEMINI_BASE_URL',
    v1: false,
  },
}

/**
 * For each provider named whose key is not set, the loopback provider stands in: its base
 * URL and a placeholder key go into the environment the SDKs read. Returns the loopback
 * provider, or undefined when every key was set. Says on standard output what it did, and
 * at exit how the loopback answered.
 */
export async function loopbackUnlessKeyed(
  ...providers: ProviderName[]
): Promise<LoopbackProvider | undefined> {
  const missing = providers.filter((p) => ENV[p].keys.every((k) => !process.env[k]))
  if (missing.length === 0) return undefined
  const loopback = await startLoopbackProvider({ window: LOOPBACK_WINDOW, detached: true })
  for (const p of missing) {
    const env = ENV[p]
    process.env[env.keys[0] as string] = 'loopback'
    process.env[env.baseURL] = env.v1 ? loopback.url : loopback.root
  }
  const names = missing.map((p) => ENV[p].keys[0]).join(', ')
  console.log(
    `(no ${names}: the loopback provider at ${loopback.root} answers, a model with a ${LOOPBACK_WINDOW.toLocaleString('en-US')}-token window; set ${names} to talk to the real one)`,
  )
  process.on('exit', () => {
    const accepted = loopback.requests.filter((r) => !r.rejected)
    const largest = Math.max(0, ...accepted.map((r) => r.tokens))
    console.log(
      `(loopback provider: ${loopback.requests.length} requests, ${loopback.rejections} refused as too long; the largest prompt it accepted: ${largest} tokens)`,
    )
  })
  return loopback
}
