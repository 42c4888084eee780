import type { RecallIndex } from './recall-index.js'

/**
 * The messages a recall may return: those the fit left out (not sent in any form, not taken
 * out as invalid), never a system prompt. Made from what is closed, which is what the
 * request holds (its size, not the history's).
 */
export class LeftOut {
  /** Messages that may be recalled. */
  readonly count: number
  /** Distinct positions that may not (sent, invalid, system prompts). */
  readonly closed: number[]
  /** Mean distinct words of the messages that may be recalled. */
  readonly meanLength: number
  /** 1 for each position that may not be recalled. */
  readonly shut: Uint8Array

  constructor(
    index: RecallIndex,
    readonly length: number,
    ...notRecallable: Iterable<number>[]
  ) {
    // Sized to the index: a message it read past `length` is not recalled either.
    this.shut = new Uint8Array(Math.max(length, index.length))
    this.shut.fill(1, length)
    const closed: number[] = []
    let closedLength = 0
    for (const list of notRecallable)
      for (const i of list) {
        if (!(i >= 0 && i < length) || this.shut[i] === 1) continue
        this.shut[i] = 1
        closed.push(i)
        closedLength += index.lengths[i] as number
      }
    this.closed = closed
    this.count = length - closed.length
    // The mean over what may be recalled, as BM25 reads it (lengths are whole numbers: exact).
    this.meanLength = (index.totalLength - closedLength) / Math.max(1, this.count)
  }

  /** Whether message `i` may be recalled. */
  has(i: number): boolean {
    return i >= 0 && i < this.length && this.shut[i] === 0
  }
}
