import type { Redis, RedisOptions } from 'ioredis'
import { InvalidInputError, InvalidOptionError } from '../errors.js'
import { newAppendId } from './append-id.js'
import {
  type AppendOptions,
  checkAppendId,
  checkEntries,
  checkReadRange,
  checkSummary,
  checkWindow,
  type HistoryStore,
  StoreConflictError,
  StoreError,
  type SummaryRecord,
} from './history-store.js'
import { redisKeys } from './redis-keys.js'
import { type RedisStoreOptions, redisSettings } from './redis-options.js'
import { APPEND, APPEND_ID_SECONDS, CLEAR, PUT_SUMMARY } from './redis-scripts.js'
import { checkServerUrl } from './server-url.js'
import { firstLineOf } from './stored-json.js'
import { readEntry, readSummary } from './stored-values.js'

/** The Redis store: a `HistoryStore` whose `close` must be called for the process to exit. */
export interface RedisStore extends HistoryStore {
  /** Ends the connection the store made from `url` (a client you gave stays open). */
  close(): Promise<void>
}

/**
 * Conversations in Redis or a Redis Cluster, for agents that run as many processes. Key
 * layout, per conversation id: `{prefix}{{id}}:messages` (a list of JSON entries),
 * `…:summaries` (a list), `…:version` (an integer bumped on every change), `…:limit`,
 * `…:append:{appendId}`; the braces are a hash tag, so all of them share one cluster slot.
 * Appends are one Lua script, so several messages land together and in order. Entries are
 * validated on the way out: a corrupted one is a `StoreError` naming the conversation and
 * position. Message contents and passwords never appear in an error. `ioredis` is an optional
 * peer dependency, loaded here.
 */
export async function redisStore(options: RedisStoreOptions = {}): Promise<RedisStore> {
  const { prefix, ttl, timeoutMs, replicas, replicaTimeoutMs } = redisSettings(options)
  let client = options.client
  let owned = false
  /** The last error of a connection the store opened, password removed; cleared when it is ready. */
  let trouble: string | undefined
  let hide = (text: string) => text
  if (!client) {
    const url = options.url ?? 'redis://127.0.0.1:6379'
    hide = checkServerUrl(url, {
      schemes: ['redis:', 'rediss:'],
      form: 'redis://[user:password@]host[:port][/db] or rediss://…',
      numericDb: true,
    })
    let mod: { Redis: new (url: string, options: RedisOptions) => Redis }
    try {
      mod = (await import('ioredis')) as unknown as typeof mod
    } catch {
      throw new InvalidOptionError(
        'store',
        'redisStore needs the "ioredis" package: npm install ioredis',
      )
    }
    client = new mod.Redis(url, {
      maxRetriesPerRequest: 1,
      ...options.redisOptions,
    })
    // Connection trouble surfaces as a StoreError from the call that meets it, not as a log
    // line: a refused login leaves commands waiting, so the error that says why is kept (with
    // the password taken out) for the call that times out.
    client.on('error', (e: unknown) => {
      trouble = hide(firstLine(e))
    })
    client.on('ready', () => {
      trouble = undefined
    })
    owned = true
  }
  const redis = client
  const { key, appendKey } = redisKeys(prefix)

  const call = async <T>(id: string, what: string, run: () => Promise<T>): Promise<T> => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new StoreError(
              `redis store: ${what} for conversation ${id} got no answer within ${timeoutMs} ms${
                trouble === undefined ? '' : ` (the connection said: ${trouble})`
              }`,
              id,
            ),
          ),
        timeoutMs,
      )
    })
    try {
      return await Promise.race([run(), late])
    } catch (e) {
      if (e instanceof StoreError || e instanceof InvalidInputError) throw e
      throw new StoreError(
        `redis store: ${what} for conversation ${id} failed (${hide(firstLine(e))})`,
        id,
      )
    } finally {
      clearTimeout(timer)
    }
  }

  const write = (id: string, what: string, command: string, args: (string | number)[]) =>
    call(id, what, () => redis.call(command, ...args))

  /**
   * With `replicas`, a `WAIT` after a write, in a pipeline behind a read of `probe` (a key
   * of the conversation): ioredis sends a pipeline to the node that serves its keys' slot,
   * the node the write went to, so the wait counts that master's replicas. A `WAIT` is not
   * redirected the way a keyed command is, so when the read is (the slot moved: a failover),
   * the slot map is refreshed and the pipeline sent again. `mustExist`: the probe is the
   * append's id, whose absence on the node that serves the slot now means the append went
   * down with its master before a replica had it.
   */
  const confirm = (id: string, what: string, probe: string, mustExist: boolean) =>
    call(id, what, async () => {
      if (replicas === 0) return
      for (let attempt = 1; ; attempt++) {
        const out = (await redis.pipeline().get(probe).wait(replicas, replicaTimeoutMs).exec()) as [
          Error | null,
          unknown,
        ][]
        const [[readError, value] = [null, null], [waitError, acked] = [null, 0]] = out
        if (
          readError &&
          /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN)\b/.test(readError.message) &&
          attempt < 5
        ) {
          await refreshSlots()
          continue
        }
        if (readError ?? waitError) throw readError ?? waitError
        if (mustExist && value === null)
          throw new StoreError(
            `redis store: ${what} for conversation ${id} was lost with its master before a replica had it; send it again with the same appendId`,
            id,
          )
        if (Number(acked) < replicas)
          throw new StoreError(
            `redis store: ${what} for conversation ${id} is on the master, but ${acked} of ${replicas} replicas confirmed it within ${replicaTimeoutMs} ms (an append sent again with the same appendId is stored once)`,
            id,
          )
        return
      }
    })

  const refreshSlots = async () => {
    await new Promise((r) => setTimeout(r, 200))
    if ('refreshSlotsCache' in redis)
      await new Promise<void>((resolve) => redis.refreshSlotsCache(() => resolve()))
  }

  return {
    timeoutMs,
    async append(id, entries, opts: AppendOptions = {}) {
      checkEntries(id, entries)
      const seed = opts.seed ?? []
      if (opts.seed !== undefined) checkEntries(id, seed, 'seed')
      const encoded = [...seed, ...entries].map((e) =>
        JSON.stringify({ m: e.message, t: e.tokens, c: e.counter }),
      )
      if (opts.appendId !== undefined) checkAppendId(id, opts.appendId)
      // Without a caller's id, one of the store's own still covers a script ioredis resends.
      const appendId = opts.appendId ?? newAppendId()
      const [length, version] = (await write(id, 'append', 'eval', [
        APPEND,
        4,
        key(id, 'messages'),
        key(id, 'version'),
        key(id, 'summaries'),
        appendKey(id, appendId),
        opts.expectedLength ?? -1,
        ttl,
        APPEND_ID_SECONDS,
        seed.length,
        ...encoded,
      ])) as [number, number]
      if (length === -1)
        throw new StoreConflictError(
          `conversation ${id} holds ${version} messages, not ${opts.expectedLength}`,
          id,
        )
      await confirm(id, 'append', appendKey(id, appendId), true)
      return length
    },
    async read(id, from = 0, to) {
      checkReadRange(id, from, to)
      // LRANGE's end is inclusive, and -1 means the last: an empty range is asked for as none.
      if (to !== undefined && to <= from) return []
      const raws = await call(id, 'read', () =>
        redis.lrange(key(id, 'messages'), from, to === undefined ? -1 : to - 1),
      )
      return raws.map((raw, k) => readEntry('redis store', id, raw, from + k))
    },
    async length(id) {
      return call(id, 'length', () => redis.llen(key(id, 'messages')))
    },
    async version(id) {
      return Number((await call(id, 'version', () => redis.get(key(id, 'version')))) ?? 0)
    },
    async putSummary(id, summary: SummaryRecord, opts = {}) {
      checkSummary(id, summary)
      const [ok, version] = (await write(id, 'putSummary', 'eval', [
        PUT_SUMMARY,
        2,
        key(id, 'summaries'),
        key(id, 'version'),
        opts.expectedVersion ?? -1,
        ttl,
        JSON.stringify(summary),
        summary.replaces[1],
      ])) as [number, number]
      if (ok === -1)
        throw new StoreConflictError(
          `conversation ${id} changed (version ${version}, expected ${opts.expectedVersion})`,
          id,
        )
      await confirm(id, 'putSummary', key(id, 'version'), false)
    },
    async summaries(id) {
      const raws = await call(id, 'summaries', () => redis.lrange(key(id, 'summaries'), 0, -1))
      return raws.map((raw, k) => readSummary('redis store', id, raw, k))
    },
    async putLimit(id, window) {
      checkWindow(id, window)
      const k = key(id, 'limit')
      if (window === null) await write(id, 'putLimit', 'del', [k])
      else await write(id, 'putLimit', 'set', [k, String(window), ...(ttl > 0 ? ['EX', ttl] : [])])
      await confirm(id, 'putLimit', k, false)
    },
    async limit(id) {
      const raw = await call(id, 'limit', () => redis.get(key(id, 'limit')))
      const n = raw === null ? Number.NaN : Number(raw)
      // A figure that is not a whole positive count steers nothing.
      return Number.isInteger(n) && n >= 1 ? n : undefined
    },
    async clear(id) {
      await write(id, 'clear', 'eval', [
        CLEAR,
        3,
        key(id, 'messages'),
        key(id, 'summaries'),
        key(id, 'version'),
        ttl,
      ])
      await confirm(id, 'clear', key(id, 'version'), false)
    },
    async delete(id) {
      await write(id, 'delete', 'del', [
        key(id, 'messages'),
        key(id, 'summaries'),
        key(id, 'version'),
        key(id, 'limit'),
      ])
      await confirm(id, 'delete', key(id, 'version'), false)
    },
    async close() {
      if (!owned) return
      // A server that never answers would keep QUIT waiting: give it the call time limit.
      await call('', 'close', () => redis.quit()).catch(() => redis.disconnect())
    },
  }
}

function firstLine(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e)
  return firstLineOf(message)
}
