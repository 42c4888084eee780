/**
 * The library as the benches run it: the built package (`dist/`, made by `npm run build`,
 * which `npm run bench` runs first), as a user's program loads it. Types come from the
 * source. Running the source through the TypeScript loader instead would time that
 * loader's additions (it wraps every function it creates to keep its name), which the
 * peers, loaded from their published builds, do not pay.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const dist = new URL('../dist/', import.meta.url)
if (!existsSync(fileURLToPath(new URL('index.js', dist))))
  throw new Error('dist/ is missing: run npm run build (npm run bench does)')

const load = async <T>(path: string): Promise<T> => (await import(new URL(path, dist).href)) as T

// The entry Node gets (the `node` export condition): it loads the encodings on first need.
export const lib = await load<typeof import('../src/index.js')>('node/index.js')
export const { copyPlain } = await load<typeof import('../src/context/copy.js')>('context/copy.js')
export const { messageText } =
  await load<typeof import('../src/messages/message.js')>('messages/message.js')
export const { credentialSpans } =
  await load<typeof import('../src/messages/credentials.js')>('messages/credentials.js')
