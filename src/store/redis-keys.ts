import { InvalidOptionError } from '../errors.js'
import { describeValue } from '../options-check.js'
import { checkConversationId } from './history-store.js'

/** The parts of a conversation the Redis store keeps, one key each. */
export type RedisKeyPart = 'messages' | 'summaries' | 'version' | 'limit'

/**
 * Where one conversation's keys live: `{prefix}{{id}}:{part}`. The braces are a Redis
 * Cluster hash tag, so every key of a conversation (append ids included) hashes to one slot
 * and a Lua script may touch them all. `{`, `}` and `%` in an id are percent-encoded, so an id
 * can neither end the tag early nor collide with another id.
 */
export function redisKeys(prefix: string) {
  const tag = (id: string) => {
    checkConversationId('redis store', id)
    return `${prefix}{${id.replace(/[%{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}}`
  }
  return {
    key: (id: string, part: RedisKeyPart) => `${tag(id)}:${part}`,
    appendKey: (id: string, appendId: string) => `${tag(id)}:append:${appendId}`,
  }
}

/** The layout of 0.1 (`{prefix}{id}:{part}`, no hash tag): only `migrateRedisKeys` reads it. */
export function legacyKey(prefix: string, id: string, part: RedisKeyPart): string {
  return `${prefix}${id}:${part}`
}

/** A prefix with a brace would move or empty the hash tag: refused. */
export function checkPrefix(prefix: string, where: string): void {
  if (/[{}]/.test(prefix))
    throw new InvalidOptionError(
      'prefix',
      `${where}: a prefix may not hold "{" or "}" (the store puts the conversation id in a Redis Cluster hash tag), got ${describeValue(prefix)}`,
    )
}
