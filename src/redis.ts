/**
 * `context-window/redis`: the history store for many processes. Its own entry, so the root
 * entry never loads or names `ioredis` (an optional peer dependency).
 */
export { type RedisStoreOptions, redisStore } from './store/redis-store.js'
