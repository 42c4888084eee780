import { InvalidOptionError } from '../errors.js'
import { describeValue } from '../options-check.js'

/**
 * The tables of the PostgreSQL store, for a table-name prefix (default `cw_`). The store
 * creates them when it starts (`CREATE … IF NOT EXISTS`, under an advisory lock so that
 * processes starting together do not race) and records the schema version in
 * `{prefix}meta`; docs/stores.md shows the same SQL for operators who create them by hand.
 */
export const SCHEMA_VERSION = 1

/** Throws unless `prefix` can stand in a table name unquoted: letters, digits and `_`. */
export function checkTablePrefix(prefix: unknown): asserts prefix is string {
  if (typeof prefix !== 'string' || !/^[a-z_][a-z0-9_]{0,40}$/i.test(prefix))
    throw new InvalidOptionError(
      'tablePrefix',
      `expected letters, digits and _ (at most 41), got ${describeValue(prefix)}`,
    )
}

export function schemaSql(prefix = 'cw_'): string {
  checkTablePrefix(prefix)
  return `
CREATE TABLE IF NOT EXISTS ${prefix}meta (
  key text PRIMARY KEY,
  value text NOT NULL
);
CREATE TABLE IF NOT EXISTS ${prefix}conversations (
  id text PRIMARY KEY,
  length integer NOT NULL DEFAULT 0,
  version bigint NOT NULL DEFAULT 0,
  window_limit integer,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS ${prefix}conversations_updated_at ON ${prefix}conversations (updated_at);
CREATE TABLE IF NOT EXISTS ${prefix}messages (
  conversation text NOT NULL REFERENCES ${prefix}conversations (id) ON DELETE CASCADE,
  seq integer NOT NULL,
  entry jsonb NOT NULL,
  PRIMARY KEY (conversation, seq)
);
CREATE TABLE IF NOT EXISTS ${prefix}summaries (
  conversation text NOT NULL REFERENCES ${prefix}conversations (id) ON DELETE CASCADE,
  k bigserial,
  replaces_end integer NOT NULL,
  record jsonb NOT NULL,
  PRIMARY KEY (conversation, k)
);
CREATE TABLE IF NOT EXISTS ${prefix}appends (
  conversation text NOT NULL,
  append_id text NOT NULL,
  length integer NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation, append_id)
);
CREATE INDEX IF NOT EXISTS ${prefix}appends_at ON ${prefix}appends (at);
INSERT INTO ${prefix}meta (key, value) VALUES ('schema_version', '${SCHEMA_VERSION}')
  ON CONFLICT (key) DO NOTHING;
`
}
