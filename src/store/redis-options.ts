/** What the Redis store takes, checked. */
import type { Cluster, Redis, RedisOptions } from 'ioredis'
import { InvalidOptionError } from '../errors.js'
import { describeValue, requireArgument, requireOptions } from '../options-check.js'
import { STORE_TIMEOUT_MS } from './history-store.js'
import { checkPrefix } from './redis-keys.js'

/** A single server (`Redis`) or a Redis Cluster (`Cluster`): the store works the same on both. */
export type RedisClient = Redis | Cluster

export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port/db` of one server; for a cluster give a `Cluster` as `client`. */
  url?: string
  client?: RedisClient
  /** Key prefix. Default `cw:`. */
  prefix?: string
  /** Seconds a conversation lives after its last change. Default: for ever. */
  ttl?: number
  /** Passed to ioredis when it connects from `url`. */
  redisOptions?: RedisOptions
  /** Longest wait for any one call, in ms, before it fails with a `StoreError`. Default 10,000. */
  timeoutMs?: number
  /**
   * Replicas that must hold a write before it resolves (Redis `WAIT`, sent to the same
   * master right after the write). With 1 and one replica per master, a write that resolved
   * survives the failover of its master. Default 0: a write resolves when the master has it.
   */
  replicas?: number
  /** How long a write waits for `replicas`, in ms, before it fails with a `StoreError`. Default 2,000. */
  replicaTimeoutMs?: number
}

/** The store's settings from its options, each checked (a wrong one is an `InvalidOptionError`). */
export function redisSettings(options: RedisStoreOptions) {
  requireOptions(options, 'redisStore', [
    'url',
    'client',
    'prefix',
    'ttl',
    'redisOptions',
    'timeoutMs',
    'replicas',
    'replicaTimeoutMs',
  ])
  for (const k of ['url', 'prefix'] as const)
    requireArgument(
      options[k] === undefined || typeof options[k] === 'string',
      'redisStore',
      k,
      'a string',
      options[k],
    )
  for (const k of ['client', 'redisOptions'] as const)
    requireArgument(
      options[k] === undefined || (typeof options[k] === 'object' && options[k] !== null),
      'redisStore',
      k,
      k === 'client' ? 'an ioredis client' : 'ioredis options',
      options[k],
    )
  const { prefix = 'cw:', ttl = 0, timeoutMs = STORE_TIMEOUT_MS, replicas = 0 } = options
  const { replicaTimeoutMs = 2000 } = options
  checkPrefix(prefix, 'redisStore')
  if (!Number.isInteger(replicas) || replicas < 0)
    throw new InvalidOptionError(
      'replicas',
      `expected a whole number of replicas >= 0, got ${describeValue(replicas)}`,
    )
  if (!Number.isInteger(replicaTimeoutMs) || replicaTimeoutMs < 1)
    throw new InvalidOptionError(
      'replicaTimeoutMs',
      `expected whole ms >= 1, got ${describeValue(replicaTimeoutMs)}`,
    )
  if (!Number.isInteger(ttl) || ttl < 0)
    throw new InvalidOptionError('ttl', `expected whole seconds >= 0, got ${describeValue(ttl)}`)
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || !Number.isFinite(timeoutMs))
    throw new InvalidOptionError(
      'timeoutMs',
      `expected a positive number of ms, got ${describeValue(timeoutMs)}`,
    )
  return { prefix, ttl, timeoutMs, replicas, replicaTimeoutMs }
}
