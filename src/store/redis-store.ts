import type { Redis as RedisClient, RedisOptions } from 'ioredis'
import { InvalidOptionError } from '../errors.js'
import { messageSchema } from '../messages/message.js'
import {
  type AppendOptions,
  type HistoryStore,
  StoreConflictError,
  type StoredEntry,
  StoreError,
  type SummaryRecord,
} from './history-store.js'

export interface RedisStoreOptions {
  /** `redis://host:port/db`; or give a connected `client`. */
  url?: string
  client?: RedisClient
  /** Key prefix. Default `cw:`. */
  prefix?: string
  /** Seconds a conversation lives after its last change. Default: for ever. */
  ttl?: number
  /** Passed to ioredis when it connects from `url`. */
  redisOptions?: RedisOptions
}

/**
 * Appends several messages, bumps the version and refreshes the TTL in one step.
 * KEYS: messages, version, summaries. ARGV: expected length (-1: any), ttl (0: none), entries...
 */
const APPEND = `
local len = redis.call('LLEN', KEYS[1])
local expected = tonumber(ARGV[1])
if expected >= 0 and expected ~= len then return {-1, len} end
for i = 3, #ARGV do redis.call('RPUSH', KEYS[1], ARGV[i]) end
local version = redis.call('INCR', KEYS[2])
local ttl = tonumber(ARGV[2])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
  if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('EXPIRE', KEYS[3], ttl) end
end
return {len + #ARGV - 2, version}
`

/** KEYS: summaries, version. ARGV: expected version (-1: any), ttl, record. */
const PUT_SUMMARY = `
local version = tonumber(redis.call('GET', KEYS[2]) or '0')
local expected = tonumber(ARGV[1])
if expected >= 0 and expected ~= version then return {-1, version} end
redis.call('RPUSH', KEYS[1], ARGV[3])
version = redis.call('INCR', KEYS[2])
local ttl = tonumber(ARGV[2])
if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) redis.call('EXPIRE', KEYS[2], ttl) end
return {1, version}
`

/**
 * Conversations in Redis, for agents that run as many processes. Key layout, per
 * conversation id: `{prefix}{id}:messages` (a list of JSON entries), `{prefix}{id}:summaries`
 * (a list), `{prefix}{id}:version` (an integer bumped on every change). Appends are one Lua
 * script, so several messages land together and in order. Entries are validated on the way
 * out: a corrupted one is a `StoreError` naming the conversation and position. Message
 * contents never appear in an error. `ioredis` is an optional peer dependency, loaded here.
 */
export async function redisStore(options: RedisStoreOptions = {}): Promise<HistoryStore> {
  const { prefix = 'cw:', ttl = 0 } = options
  if (!Number.isInteger(ttl) || ttl < 0)
    throw new InvalidOptionError('ttl', `expected whole seconds >= 0, got ${JSON.stringify(ttl)}`)
  let client = options.client
  let owned = false
  if (!client) {
    let mod: { Redis: new (url: string, options: RedisOptions) => RedisClient }
    try {
      mod = (await import('ioredis')) as unknown as typeof mod
    } catch {
      throw new InvalidOptionError(
        'store',
        'redisStore needs the "ioredis" package: npm install ioredis',
      )
    }
    client = new mod.Redis(options.url ?? 'redis://127.0.0.1:6379', {
      maxRetriesPerRequest: 1,
      ...options.redisOptions,
    })
    // Connection trouble surfaces as a StoreError from the call that meets it, not as a log line.
    client.on('error', () => {})
    owned = true
  }
  const redis = client
  const key = (id: string, part: 'messages' | 'summaries' | 'version' | 'limit') =>
    `${prefix}${id}:${part}`

  const call = async <T>(id: string, what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (e) {
      if (e instanceof StoreError) throw e
      throw new StoreError(
        `redis store: ${what} for conversation ${id} failed (${(e as Error).message.split('\n')[0]})`,
        id,
      )
    }
  }

  const parse = (id: string, raw: string, seq: number): StoredEntry => {
    let json: { m?: unknown; t?: unknown; c?: unknown }
    try {
      json = JSON.parse(raw)
    } catch {
      throw new StoreError(
        `redis store: conversation ${id}, message ${seq}: the stored entry is not JSON`,
        id,
        seq,
      )
    }
    const parsed = messageSchema.safeParse(json?.m)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw new StoreError(
        `redis store: conversation ${id}, message ${seq}: the stored message is invalid (field ${issue?.path.join('.') || 'role'})`,
        id,
        seq,
      )
    }
    return {
      seq,
      message: parsed.data,
      ...(typeof json.t === 'number' && { tokens: json.t }),
      ...(typeof json.c === 'string' && { counter: json.c }),
    }
  }

  return {
    async append(id, entries, opts: AppendOptions = {}) {
      const encoded = entries.map((e) => {
        messageSchema.parse(e.message)
        return JSON.stringify({ m: e.message, t: e.tokens, c: e.counter })
      })
      const [length, version] = (await call(id, 'append', () =>
        redis.eval(
          APPEND,
          3,
          key(id, 'messages'),
          key(id, 'version'),
          key(id, 'summaries'),
          opts.expectedLength ?? -1,
          ttl,
          ...encoded,
        ),
      )) as [number, number]
      if (length === -1)
        throw new StoreConflictError(
          `conversation ${id} holds ${version} messages, not ${opts.expectedLength}`,
          id,
        )
      return length
    },
    async read(id, from = 0, to) {
      const raws = await call(id, 'read', () =>
        redis.lrange(key(id, 'messages'), from, to === undefined ? -1 : to - 1),
      )
      return raws.map((raw, k) => parse(id, raw, from + k))
    },
    async length(id) {
      return call(id, 'length', () => redis.llen(key(id, 'messages')))
    },
    async version(id) {
      return Number((await call(id, 'version', () => redis.get(key(id, 'version')))) ?? 0)
    },
    async putSummary(id, summary: SummaryRecord, opts = {}) {
      messageSchema.parse(summary.message)
      const [ok, version] = (await call(id, 'putSummary', () =>
        redis.eval(
          PUT_SUMMARY,
          2,
          key(id, 'summaries'),
          key(id, 'version'),
          opts.expectedVersion ?? -1,
          ttl,
          JSON.stringify(summary),
        ),
      )) as [number, number]
      if (ok === -1)
        throw new StoreConflictError(
          `conversation ${id} changed (version ${version}, expected ${opts.expectedVersion})`,
          id,
        )
    },
    async summaries(id) {
      const raws = await call(id, 'summaries', () => redis.lrange(key(id, 'summaries'), 0, -1))
      return raws.map((raw, k) => {
        try {
          const s = JSON.parse(raw) as SummaryRecord
          messageSchema.parse(s.message)
          return s
        } catch {
          throw new StoreError(
            `redis store: conversation ${id}, summary ${k}: the stored summary is invalid`,
            id,
            k,
          )
        }
      })
    },
    async putLimit(id, window) {
      await call(id, 'putLimit', async () => {
        if (window === null) await redis.del(key(id, 'limit'))
        else if (ttl > 0) await redis.set(key(id, 'limit'), String(window), 'EX', ttl)
        else await redis.set(key(id, 'limit'), String(window))
      })
    },
    async limit(id) {
      const raw = await call(id, 'limit', () => redis.get(key(id, 'limit')))
      const n = raw === null ? Number.NaN : Number(raw)
      // A figure that is not a whole positive count steers nothing.
      return Number.isInteger(n) && n >= 1 ? n : undefined
    },
    async clear(id) {
      await call(id, 'clear', () =>
        redis
          .multi()
          .del(key(id, 'messages'), key(id, 'summaries'))
          .incr(key(id, 'version'))
          .exec(),
      )
    },
    async delete(id) {
      await call(id, 'delete', () =>
        redis.del(key(id, 'messages'), key(id, 'summaries'), key(id, 'version'), key(id, 'limit')),
      )
    },
    async close() {
      if (owned) await redis.quit().catch(() => redis.disconnect())
    },
  }
}
