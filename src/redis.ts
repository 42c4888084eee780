/**
 * `context-window/redis`: the history store for many processes, on one Redis server or a
 * Redis Cluster. Its own entry, so the root entry never loads or names `ioredis` (an
 * optional peer dependency).
 */
export {
  type MigrateRedisKeysResult,
  migrateRedisKeys,
} from './store/redis-migrate.js'
export type { RedisClient, RedisStoreOptions } from './store/redis-options.js'
export { type RedisStore, redisStore } from './store/redis-store.js'
