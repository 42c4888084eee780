// One of several processes appending to shared conversations in PostgreSQL while their
// connections are being killed: node --import tsx postgres-writer.ts URL WRITER CONVERSATIONS APPENDS
// Each append has an id of its own and is sent again (same id) until it resolves; one line
// `conversation k` on stdout per append that resolved, then `retries n`.
import { postgresStore } from '../../src/store/postgres-store.js'

const [url, writer, conversations, appends] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
]
let retries = 0
/** The store, tried again while the connection that would check the schema is killed. */
async function open() {
  for (;;) {
    try {
      return await postgresStore({ url, poolOptions: { application_name: 'cw-writer', max: 4 } })
    } catch {
      retries++
      await new Promise((r) => setTimeout(r, 50))
    }
  }
}
const store = await open()

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
      await new Promise((r) => setTimeout(r, 50))
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
await store.close()
