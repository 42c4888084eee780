import type { AppendOptions, HistoryStore, StoredEntry, SummaryRecord } from './history-store.js'
import {
  checkAppendId,
  checkConversationId,
  checkEntries,
  checkReadRange,
  checkSummary,
  checkWindow,
  StoreConflictError,
} from './history-store.js'

interface Conversation {
  entries: StoredEntry[]
  summaries: SummaryRecord[]
  version: number
}

/** How long an append id is remembered, as the Redis store does. */
const APPEND_ID_MS = 3_600_000

/** Conversations in this process's memory: the default store, and the reference for every other. */
export function memoryStore(): HistoryStore {
  const all = new Map<string, Conversation>()
  const limits = new Map<string, number>()
  /** `conversation \0 appendId` → the length that append returned and when it expires, oldest first. */
  const done = new Map<string, { length: number; until: number }>()
  const empty: Conversation = { entries: [], summaries: [], version: 0 }
  /** The conversation, for a read: an unknown one is not made. */
  const peek = (id: string) => {
    checkConversationId('memory store', id)
    return all.get(id) ?? empty
  }
  /** The conversation, for a write: its id checked by the caller. */
  const get = (id: string) => {
    let c = all.get(id)
    if (!c) {
      c = { entries: [], summaries: [], version: 0 }
      all.set(id, c)
    }
    return c
  }
  return {
    async append(id, entries, options: AppendOptions = {}) {
      checkConversationId('memory store', id)
      checkEntries(id, entries)
      if (options.seed !== undefined) checkEntries(id, options.seed, 'seed')
      if (options.appendId !== undefined) checkAppendId(id, options.appendId)
      const now = Date.now()
      for (const [k, v] of done) {
        if (v.until > now) break
        done.delete(k)
      }
      const name = options.appendId === undefined ? undefined : `${id}\0${options.appendId}`
      const seen = name === undefined ? undefined : done.get(name)
      if (seen) return seen.length
      const c = get(id)
      if (options.expectedLength !== undefined && options.expectedLength !== c.entries.length) {
        throw new StoreConflictError(
          `conversation ${id} holds ${c.entries.length} messages, not ${options.expectedLength}`,
          id,
        )
      }
      const all = c.entries.length === 0 && options.seed ? [...options.seed, ...entries] : entries
      for (const e of all) c.entries.push({ ...structuredClone(e), seq: c.entries.length })
      c.version++
      if (name !== undefined)
        done.set(name, { length: c.entries.length, until: now + APPEND_ID_MS })
      return c.entries.length
    },
    async read(id, from = 0, to) {
      const c = peek(id)
      checkReadRange(id, from, to)
      return structuredClone(c.entries.slice(from, to))
    },
    async length(id) {
      return peek(id).entries.length
    },
    async version(id) {
      return peek(id).version
    },
    async putSummary(id, summary, options = {}) {
      checkConversationId('memory store', id)
      checkSummary(id, summary)
      const c = get(id)
      if (options.expectedVersion !== undefined && options.expectedVersion !== c.version) {
        throw new StoreConflictError(
          `conversation ${id} changed (version ${c.version}, expected ${options.expectedVersion})`,
          id,
        )
      }
      const end = summary.replaces[1]
      c.summaries = c.summaries.filter((s) => s.replaces[1] > end)
      c.summaries.push(structuredClone(summary))
      c.version++
    },
    async summaries(id) {
      return structuredClone(peek(id).summaries)
    },
    async clear(id) {
      checkConversationId('memory store', id)
      const c = get(id)
      c.entries = []
      c.summaries = []
      c.version++
    },
    async putLimit(id, window) {
      checkConversationId('memory store', id)
      checkWindow(id, window)
      if (window === null) limits.delete(id)
      else limits.set(id, window)
    },
    async limit(id) {
      checkConversationId('memory store', id)
      return limits.get(id)
    },
    async delete(id) {
      checkConversationId('memory store', id)
      all.delete(id)
      limits.delete(id)
    },
  }
}
