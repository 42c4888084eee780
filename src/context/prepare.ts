import type { Message } from '../messages/message.js'
import type { ProblemCode } from '../providers/problems.js'
import { shownOrigin } from '../recall/numbering.js'
import { pinnedPositions } from '../strategies/pins.js'
import type { ChangeReason, View } from '../strategies/types.js'
import { HistoryIndex } from './history-index.js'
import type { Setup } from './options/options.js'
import { createView, snapshot, type ViewSettings, type ViewSource } from './view.js'

/** A history made ready for a strategy: the view, and how it maps back to the input. */
export interface Prepared {
  view: View
  /** Input index of each view message. */
  origin: ArrayLike<number>
  /** Input messages as taken, and their tokens (only the first `inputLength` are this fit's). */
  inputTokens: ArrayLike<number>
  inputLength: number
  /**
   * Input indices whose count in the view was given (stored by another process) rather than
   * counted: an account of what is sent counts these again, and takes the rest from the view.
   */
  givenCounts: ReadonlySet<number>
  /** Input indices removed before selection: by the repair (invalid) or by a transform. */
  removed: Map<number, { fate: 'invalid' | 'dropped'; reason: ProblemCode | ChangeReason }>
  /** Input indices sent changed by repair or a transform, and why. */
  rewritten: Map<number, ChangeReason | ProblemCode>
}

/** What the messages may use, and the rest of the request, for a setup. */
export function viewSettings(setup: Setup, calibration = 1): ViewSettings {
  const priming = setup.counter.replyPriming
  const available = setup.budget - setup.reserve - setup.toolTokens - priming
  return {
    budget: setup.budget,
    // Counts stay as counted; the room they may fill shrinks or grows by the measured ratio.
    available: calibration === 1 ? available : Math.floor(available / calibration),
    overhead: { tools: setup.toolTokens, reserve: setup.reserve, priming },
    counter: setup.counter,
    provider: setup.provider,
    query: setup.query,
    summaries: setup.summaries,
    recall: setup.recall,
  }
}

/**
 * The index as it stands, then the setup's transforms (each followed by a repair of what it
 * left). Without transforms nothing here is proportional to the history; `frozen` copies
 * the index's arrays for a strategy that awaits while the index may grow.
 */
export function prepare(
  index: HistoryIndex,
  setup: Setup,
  options: { calibration?: number; frozen?: boolean } = {},
): Prepared {
  index.settle()
  const settings = viewSettings(setup, options.calibration)
  const frozen = options.frozen === true
  // What repair took out or changed, by input index: as many entries as repaired messages,
  // so made only when read (a `FitResult` reads it; `getMessages` never does). Made now when
  // transforms add to it, or when the index may change before it is read.
  let repairs: Pick<Prepared, 'removed' | 'rewritten'> | undefined
  const repaired = () => {
    repairs ??= {
      removed: new Map(index.removed.map((r) => [r.index, { fate: 'invalid', reason: r.code }])),
      rewritten: new Map(index.changed.map((c) => [c.index, c.code])),
    }
    return repairs
  }
  if (frozen || setup.transforms.length > 0) repaired()
  let source: ViewSource = frozen ? snapshot(index) : index
  let origin: ArrayLike<number> = frozen ? index.origin.values().slice() : index.origin.values()
  // `origin` as the numbers the model reads (a new array only when an adapter numbered the
  // input): made once for each `origin`, shared by the transforms' views and the final one.
  let shown: ArrayLike<number> | undefined
  const shownNow = () => {
    shown ??= shownOrigin(index.input, origin)
    return shown
  }
  for (const transform of setup.transforms) {
    // Numbered as the model reads them: a transform's note names a message by its number.
    const view = createView(source, settings, shownNow())
    // A pinned message, and the unit holding it, is sent as it is (strategies/pins.ts): `pin`
    // is asked with the numbers selection asks it with (the view's), so both pin the same.
    const changes = unpinned(transform.apply(view), pinnedPositions(view, setup.pin, view.origin))
    if (changes.size === 0) continue
    const nextMessages: Message[] = []
    const nextOrigin: number[] = []
    view.messages.forEach((m, i) => {
      const change = changes.get(i)
      const from = origin[i] ?? -1
      const { removed, rewritten } = repaired()
      if (change === null) {
        removed.set(from, { fate: 'dropped', reason: transform.reason })
        rewritten.delete(from)
        return
      }
      if (change !== undefined) rewritten.set(from, transform.reason)
      nextMessages.push(change ?? m)
      nextOrigin.push(from)
    })
    const next = new HistoryIndex(setup.counter, setup.provider, true)
    next.pushAll(nextMessages)
    origin = next.origin.values().map((k) => nextOrigin[k] ?? -1)
    shown = undefined
    for (const r of next.removed) {
      repaired().removed.set(nextOrigin[r.index] ?? -1, { fate: 'dropped', reason: r.code })
    }
    source = next
  }
  return {
    // The view knows where its messages came from, so what it says about them names the
    // caller's places. It is made here, once, as the same class every time (no object
    // layered over it), so the strategies' calls on it stay fast.
    view: createView(source, settings, shownNow()),
    origin,
    inputTokens: frozen ? index.inputTokens.values().slice() : index.inputTokens.values(),
    inputLength: index.length,
    // A transform's output is counted anew by the index made for it.
    givenCounts: setup.transforms.length > 0 ? new Set() : index.givenCounts,
    get removed() {
      return repaired().removed
    },
    get rewritten() {
      return repaired().rewritten
    },
  }
}

/** A transform's changes less those to pinned positions (a copy: the transform may keep its map). */
function unpinned(
  changes: Map<number, Message | null>,
  pinned: ReadonlySet<number> | undefined,
): Map<number, Message | null> {
  if (!pinned || ![...pinned].some((i) => changes.has(i))) return changes
  return new Map([...changes].filter(([i]) => !pinned.has(i)))
}
