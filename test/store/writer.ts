// One of several processes appending to one conversation: node --import tsx writer.ts URL ID WRITER COUNT
import { redisStore } from '../../src/store/redis-store.js'

const [url, id, writer, count] = process.argv.slice(2)
const store = await redisStore({ url })
const acked: number[] = []
for (let k = 0; k < Number(count); k++) {
  try {
    await store.append(id as string, [{ message: { role: 'user', content: `${writer}:${k}` } }])
    acked.push(k)
    process.stdout.write(`${k}\n`)
  } catch {
    break
  }
}
await store.close?.()
