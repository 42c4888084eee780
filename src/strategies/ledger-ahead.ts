/**
 * Reading ahead of the cut, in idle time. The messages a ledger reads are those the cut drops;
 * in an agent loop they were added turns ago, and the process waits on the model between two
 * calls. After each selection, the facts of the messages next to be dropped (the oldest sent,
 * up to a window's volume) are read once the caller's code has run (a macrotask, never holding
 * a process open), in slices of a few milliseconds, so the call that drops them finds them
 * read. Each message is still read once (the same per-message cache); a job that finds the
 * view gone stale reads nothing wrong: facts are kept per message object and tool name.
 */
import type { Message } from '../messages/message.js'
import { messageSecrets } from '../messages/quoted-facts.js'
import { lineOpening } from '../messages/records.js'
import { costOf, isRead, itemsOf, pieceTokens, placeOf, toolOf, whoOf } from './ledger-items.js'
import type { PlanItem, View } from './types.js'

interface Ahead {
  view: View
  /** View position of the oldest message sent after the system prompt. */
  from: number
  /** Tokens of messages to read from there. */
  limit: number
}

const ahead = new Map<readonly Message[], Ahead>()

let aheadScheduled = false

/** Milliseconds one slice of reading ahead may take before it yields. */
const AHEAD_SLICE_MS = 4

/** Histories read ahead at once at most (a process serving many conversations). */
const AHEAD_JOBS = 64

const later: ((run: () => void) => void) | undefined =
  typeof setImmediate === 'function'
    ? (run) => {
        const handle = setImmediate(run) as { unref?: () => void }
        handle.unref?.()
      }
    : typeof setTimeout === 'function'
      ? (run) => {
          setTimeout(run, 0)
        }
      : undefined

export function readAhead(view: View, plan: readonly PlanItem[], limit: number): void {
  if (!later) return
  let from = -1
  for (const item of plan)
    if (!('synthetic' in item) && view.message(item.index).role !== 'system') {
      from = item.index
      break
    }
  if (from < 0) return
  const job = ahead.get(view.messages)
  if (job && job.from === from && job.view === view) return
  // Bounded: where the job never runs (a test's fake timers), at most this many views wait.
  if (!job && ahead.size >= AHEAD_JOBS)
    ahead.delete(ahead.keys().next().value as readonly Message[])
  ahead.set(view.messages, { view, from, limit })
  if (!aheadScheduled) {
    aheadScheduled = true
    later(readSlice)
  }
}

function readSlice(): void {
  aheadScheduled = false
  const deadline = performance.now() + AHEAD_SLICE_MS
  for (const [key, job] of ahead) {
    const { view, limit } = job
    try {
      const n = view.messages.length
      let volume = 0
      let q = job.from
      for (; q < n && volume < limit; q++) {
        const m = view.message(q)
        volume += view.messageTokens(q)
        if (m.role === 'system') continue
        const who = whoOf(view, q)
        const tool = toolOf(who)
        if (isRead(view.counter, m, tool)) continue
        // Its facts, and what the fill prices them at: a stable cut that moves by a chunk
        // finds the chunk's items priced, not only read.
        for (const item of itemsOf(view.counter, m, tool, [])) costOf(view.counter, item)
        pieceTokens(view.counter, `\n${lineOpening(placeOf(view, q), who)}`)
        messageSecrets(m)
        if (performance.now() > deadline) {
          job.from = q + 1
          job.limit = limit - volume
          aheadScheduled = true
          later?.(readSlice)
          return
        }
      }
    } catch {
      // A view gone stale under the job: what it would read is read when needed.
    }
    ahead.delete(key)
  }
}
