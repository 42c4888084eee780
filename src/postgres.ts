/**
 * `context-window/postgres`: the history store in PostgreSQL. Its own entry, so no other
 * entry loads or names `pg` (an optional peer dependency).
 */

export type { PostgresStoreOptions } from './store/postgres-options.js'
export { schemaSql as postgresSchemaSql } from './store/postgres-schema.js'
export { type PostgresStore, postgresStore } from './store/postgres-store.js'
