// One of several processes appending to shared conversations on a Redis Cluster while a
// master may die: node --import tsx cluster-writer.ts PORTS WRITER CONVERSATIONS APPENDS
// Each append has an id of its own and is sent again (same id) until it resolves; one line
// `conversation k` on stdout per append that resolved, then `retries n`.
import { Cluster } from 'ioredis'
import { redisStore } from '../../src/store/redis-store.js'

const [ports, writer, conversations, appends] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
]
const client = new Cluster(
  ports.split(',').map((port) => ({ host: '127.0.0.1', port: Number(port) })),
  {
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 300,
    redisOptions: { connectTimeout: 2000 },
  },
)
client.on('error', () => {})
const store = await redisStore({ client, replicas: 1, replicaTimeoutMs: 1000, timeoutMs: 5000 })
let retries = 0

async function appendOnce(conversation: string, k: number): Promise<void> {
  const message = { role: 'user' as const, content: `${writer}:${k}` }
  const deadline = Date.now() + 180_000
  for (;;) {
    try {
      await store.append(conversation, [{ message }], {
        appendId: `${writer}:${conversation}:${k}`,
      })
      return
    } catch (e) {
      if (Date.now() > deadline) throw e
      retries++
      await new Promise((r) => setTimeout(r, 250))
    }
  }
}

await Promise.all(
  Array.from({ length: Number(conversations) }, async (_, c) => {
    const conversation = `conv-${c}`
    for (let k = 0; k < Number(appends); k++) {
      await appendOnce(conversation, k)
      process.stdout.write(`${conversation} ${k}\n`)
    }
  }),
)
process.stdout.write(`retries ${retries}\n`)
await client.quit()
