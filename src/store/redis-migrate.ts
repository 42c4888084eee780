import type { Redis } from 'ioredis'
import { InvalidOptionError } from '../errors.js'
import { requireArgument, requireOptions } from '../options-check.js'
import { StoreError } from './history-store.js'
import { checkPrefix, legacyKey, type RedisKeyPart, redisKeys } from './redis-keys.js'

const PARTS: RedisKeyPart[] = ['messages', 'summaries', 'version', 'limit']

/**
 * Moves one conversation's keys from the 0.1 layout to the hash-tagged one, in one step,
 * unless the new layout holds something already (then nothing moves). RENAME keeps each
 * key's TTL. KEYS: the four old keys, then the four new ones. Returns 1 moved, 0 skipped.
 */
const MOVE = `
for i = 5, 8 do if redis.call('EXISTS', KEYS[i]) == 1 then return 0 end end
for i = 1, 4 do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('RENAME', KEYS[i], KEYS[i + 4]) end
end
return 1
`

export interface MigrateRedisKeysResult {
  /** Conversations whose keys moved to the new layout. */
  moved: number
  /** Conversations left where they were because the new layout held them already. */
  skipped: string[]
}

/**
 * Renames the keys `redisStore` 0.1 wrote (`{prefix}{id}:messages`, no hash tag) to the
 * layout it uses now (`{prefix}{{id}}:messages`, one cluster slot per conversation), one
 * conversation at a time, each in one atomic step. Run it against the single server that
 * holds the data, with writers stopped, before they restart on the new version; a second
 * run moves nothing. Old append-id keys are left to expire (within an hour).
 */
export async function migrateRedisKeys(
  client: Redis,
  options: { prefix?: string } = {},
): Promise<MigrateRedisKeysResult> {
  requireOptions(options, 'migrateRedisKeys', ['prefix'])
  requireArgument(
    typeof client === 'object' && client !== null && typeof client.scan === 'function',
    'migrateRedisKeys',
    'client',
    'an ioredis client',
    client,
  )
  if ('isCluster' in client && client.isCluster)
    throw new InvalidOptionError(
      'client',
      'migrateRedisKeys renames keys on the single server that holds the 0.1 layout (a cluster never could): run it there, then move the keys to the cluster',
    )
  const { prefix = 'cw:' } = options
  checkPrefix(prefix, 'migrateRedisKeys')
  const { key } = redisKeys(prefix)
  const glob = prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`)
  // `{prefix}{tag}:part` with no brace inside the tag is the new layout, never an old id.
  const fresh = new RegExp(`^\\{[^{}]*\\}:(${PARTS.join('|')})$`)
  const ids = new Set<string>()
  let cursor = '0'
  try {
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${glob}*`, 'COUNT', 1000)
      cursor = next
      for (const k of keys) {
        const rest = k.slice(prefix.length)
        if (fresh.test(rest)) continue
        const m = /^(.+):(messages|summaries|version|limit)$/s.exec(rest)
        const id = m?.[1]
        if (id !== undefined) ids.add(id)
      }
    } while (cursor !== '0')
    const result: MigrateRedisKeysResult = { moved: 0, skipped: [] }
    for (const id of ids) {
      const keys = [...PARTS.map((p) => legacyKey(prefix, id, p)), ...PARTS.map((p) => key(id, p))]
      if ((await client.eval(MOVE, keys.length, ...keys)) === 1) result.moved++
      else result.skipped.push(id)
    }
    return result
  } catch (e) {
    if (e instanceof StoreError) throw e
    const why = (e instanceof Error ? e.message : String(e)).split('\n')[0]
    throw new StoreError(`redis store: migrateRedisKeys failed (${why})`, '')
  }
}
