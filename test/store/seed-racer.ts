// One of several processes that start the same conversations at the same moment, each through
// a ChatContext with a system prompt: node --import tsx seed-racer.ts KIND ADDRESS WRITER IDS
// KIND is redis (ADDRESS a URL), cluster (ADDRESS comma-separated ports) or postgres (a URL).
// Prints `ready` once connected, waits for a line on stdin, adds one message to each
// conversation, all at once, and prints `done`.
import { createInterface } from 'node:readline'
import { Cluster } from 'ioredis'
import { ChatContext } from '../../src/context/chat/chat-context.js'
import type { HistoryStore } from '../../src/store/history-store.js'
import { postgresStore } from '../../src/store/postgres-store.js'
import { redisStore } from '../../src/store/redis-store.js'
import { estimateCounter } from '../../src/tokens/counters.js'

const [kind, address, writer, ids] = process.argv.slice(2) as [string, string, string, string]
let cluster: Cluster | undefined
let store: HistoryStore
if (kind === 'cluster') {
  cluster = new Cluster(
    address.split(',').map((port) => ({ host: '127.0.0.1', port: Number(port) })),
  )
  store = await redisStore({ client: cluster, replicas: 1 })
} else if (kind === 'redis') store = await redisStore({ url: address })
else store = await postgresStore({ url: address })

const contexts = ids.split(',').map(
  (id) =>
    new ChatContext({
      store,
      id,
      budget: 4000,
      // An estimate: no process waits for a tokenizer table before the start.
      counter: estimateCounter(),
      initialMessages: [{ role: 'system', content: 'policy' }],
    }),
)
// Connected before the start: the first calls race, not the connections.
await store.length(ids.split(',')[0] as string)
process.stdout.write('ready\n')
await new Promise<void>((resolve) =>
  createInterface({ input: process.stdin }).once('line', () => resolve()),
)
await Promise.all(contexts.map((ctx) => ctx.addMessage({ role: 'user', content: writer })))
process.stdout.write('done\n')
await store.close?.()
await cluster?.quit()
process.exit(0)
