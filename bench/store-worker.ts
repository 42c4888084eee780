// One process of the store bench: node --import tsx store-worker.ts KIND TARGET WORKER CONVERSATIONS APPENDS
// Every conversation is a ChatContext over the store, written in turn; all conversations of
// the process at once. Prints the latency of each addMessage (ms) and when the appends
// began and ended, as one JSON line.
import '../src/tokens/node-encodings.js'
import { Cluster } from 'ioredis'
import { ChatContext } from '../src/context/chat/chat-context.js'
import type { HistoryStore } from '../src/store/history-store.js'
import { postgresStore } from '../src/store/postgres-store.js'
import { redisStore } from '../src/store/redis-store.js'

const [kind, target, worker, conversations, appends] = process.argv.slice(2) as string[]
let cluster: Cluster | undefined
let store: HistoryStore
if (kind === 'redis') store = await redisStore({ url: target as string })
else if (kind === 'cluster') {
  cluster = new Cluster(
    (target as string).split(',').map((port) => ({ host: '127.0.0.1', port: Number(port) })),
  )
  store = await redisStore({ client: cluster, replicas: 1 })
} else store = await postgresStore({ url: target as string, poolOptions: { max: 10 } })

const latencies: number[] = []
const start = Date.now()
await Promise.all(
  Array.from({ length: Number(conversations) }, async (_, c) => {
    const ctx = new ChatContext({
      store,
      id: `bench-${worker}-${c}`,
      budget: 8000,
      initialMessages: [{ role: 'system', content: 'You are an airline agent.' }],
    })
    for (let k = 0; k < Number(appends); k++) {
      const started = performance.now()
      await ctx.addMessage({
        role: k % 2 ? 'assistant' : 'user',
        content: `message ${k} of conversation ${c}: a question about booking a flight and a refund`,
      })
      latencies.push(performance.now() - started)
    }
  }),
)
process.stdout.write(`${JSON.stringify({ latencies, start, end: Date.now() })}\n`)
await store.close?.()
await cluster?.quit()
