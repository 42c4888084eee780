/**
 * The ledger's message: its lines joined under the heading once per text (kept under the
 * texts' numbers), and counted piece by piece where the counter allows.
 */
import type { Message } from '../messages/message.js'
import { type Piecewise, piecewiseOf, type TokenCounter } from '../tokens/counter.js'
import { add, itemPiece, lineTokens, memoPerCounter, sameList } from './ledger-items.js'
import type { Line, Made, Tally } from './ledger-tally.js'

/** The ledger message for a text, kept for the last texts (a stable cut makes the same one each call). */
const ledgerMessages = memoPerCounter<Made>(64)

/** A number for each heading and line text (one per text while `textEpoch` lasts). */
const textIds = new Map<string, number>()
let textEpoch = 0

function textId(text: string): number {
  let id = textIds.get(text)
  if (id === undefined) {
    id = textIds.size
    textIds.set(text, id)
  }
  return id
}

export function ledgerMessage(
  counter: TokenCounter,
  tally: Tally,
  body: readonly Line[],
  heading: string,
): Made {
  const last = tally.last
  if (last && last.heading === heading && sameList(last.body, body)) return last.made
  // Keyed by its texts' numbers, not by the text: a key of a few numbers a line, where the
  // text is kilobytes to join and hash. The same numbers are the same text.
  // Bounded: past the bound the numbers start again, under keys no earlier ledger has.
  if (textIds.size + body.length >= 50_000) {
    textIds.clear()
    textEpoch++
  }
  let key = `${textEpoch}.${textId(heading)}`
  for (const line of body) {
    if (line.epoch !== textEpoch) {
      line.id = textId(line.text)
      line.epoch = textEpoch
    }
    key += `,${line.id}`
  }
  const made = ledgerMessages(counter, key, () => {
    let text = heading
    for (const line of body) text += `\n${line.text}`
    // Frozen, so a request that sends it again shares the object (as a stable prefix does).
    const message: Message = Object.freeze({ role: 'user', content: text })
    const pieces = piecewiseOf(counter)
    if (!pieces) return { message, tokens: counter.countMessage(message) }
    const n = piecewiseTokens(counter, pieces, heading, body)
    if (n < 0) return { message, tokens: counter.countMessage(message) }
    const tokens = pieces.user(n)
    // The request's assembly counts it again: a lookup, not the whole text.
    pieces.remember(message, tokens)
    return { message, tokens }
  })
  tally.last = { heading, body, made }
  return made
}

/**
 * The text's tokens before the counter's factor, piece by piece, each piece counted once per
 * counter however many ledgers hold it; -1 when a piece holds a run counted in slices (see
 * `countInRuns`), which is not counted the same alone (the text is then counted whole).
 *
 * Every cut falls where a pre-tokenizer piece ends, for o200k and cl100k alike: after an
 * item's closing quote or bracket and its comma (a run of punctuation never takes the space
 * after it), after the line opening's colon, and after a line break that follows a closing
 * quote, a bracket or the heading's closing mark, before the next line's letter.
 */
function piecewiseTokens(
  counter: TokenCounter,
  pieces: Piecewise,
  heading: string,
  body: readonly Line[],
): number {
  let n = add(0, lineTokens(counter, pieces, body.length > 0 ? `${heading}\n` : heading))
  for (let k = 0; k < body.length && n >= 0; k++)
    n = add(n, lineRaw(counter, pieces, body[k] as Line, k === body.length - 1))
  return n
}

/** A line's pieces' tokens before the counter's factor, with the line break after it unless `last`; kept with the line. */
function lineRaw(counter: TokenCounter, pieces: Piecewise, line: Line, last: boolean): number {
  line.raw ??= []
  const kept = line.raw[last ? 1 : 0]
  if (kept !== undefined) return kept
  const { opening, parts, items } = line
  const end = last ? '' : '\n'
  opening.raw ??= lineTokens(counter, pieces, opening.text)
  let n = opening.raw
  for (let p = 0; p < parts.length && n >= 0; p++) {
    const after = p < parts.length - 1 ? 0 : last ? 2 : 1
    const item = items?.[p]
    // Each item's piece counted once, kept with the item (items are per counter); a list
    // of values under one key is counted as it is written.
    n = add(
      n,
      item
        ? itemPiece(counter, pieces, item, after)
        : lineTokens(counter, pieces, ` ${parts[p]}${after === 0 ? ',' : end}`),
    )
  }
  line.raw[last ? 1 : 0] = n
  return n
}
