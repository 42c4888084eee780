import { InvalidOptionError } from '../errors.js'
import { describeValue } from '../options-check.js'

/**
 * A byte-pair encoder for tokenizers published in the Hugging Face `tokenizer.json` form
 * with a BPE model, byte fallback and no pre-tokenizer split (SentencePiece BPE converted,
 * as Gemma's is): the text is cut at the added tokens, each piece has its spaces replaced by
 * `▁`, and the pair of adjacent symbols with the lowest merge rank is merged, leftmost first,
 * until no pair has a rank. A character missing from the vocabulary becomes its UTF-8 bytes
 * (`<0xNN>` tokens). Merging uses a heap over a linked list, so one piece costs
 * O(n log n) in its length, however long.
 */
export interface MergeBpe {
  /** Token ids of `text`, with no start-of-sequence token. */
  encode(text: string): number[]
  /** How many tokens `text` is. */
  count(text: string): number
  /** Vocabulary size. */
  readonly size: number
}

/** The parts of a `tokenizer.json` this encoder reads. */
interface TokenizerJson {
  model: {
    type: string
    vocab: Record<string, number>
    merges: (string | [string, string])[]
    byte_fallback?: boolean
    unk_token?: string | null
  }
  added_tokens?: { id: number; content: string }[]
  normalizer?: unknown
}

const SPACE = '\u2581'
const PAIR_BASE = 2 ** 21

function bad(field: string, why: string): never {
  throw new InvalidOptionError('tokenizer', `tokenizer.json ${field}: ${why}`)
}

/** Reads a parsed `tokenizer.json` (or its text) into an encoder. */
export function mergeBpe(source: unknown): MergeBpe {
  let json: unknown = source
  if (typeof source === 'string') {
    try {
      json = JSON.parse(source)
    } catch {
      bad('text', 'is not JSON')
    }
  }
  if (!json || typeof json !== 'object') bad('root', 'expected an object')
  const { model, added_tokens: added = [] } = json as TokenizerJson
  if (!model || typeof model !== 'object') bad('model', 'missing')
  if (model.type !== 'BPE') bad('model.type', `expected "BPE", got ${describeValue(model.type)}`)
  if (!model.vocab || typeof model.vocab !== 'object') bad('model.vocab', 'missing')
  if (!Array.isArray(model.merges)) bad('model.merges', 'missing')
  if (!Array.isArray(added)) bad('added_tokens', 'expected a list')

  const ids = new Map<string, number>()
  for (const [piece, id] of Object.entries(model.vocab)) {
    if (!Number.isInteger(id) || id < 0 || id >= PAIR_BASE)
      bad(`model.vocab[${JSON.stringify(piece)}]`, `expected an id below ${PAIR_BASE}`)
    ids.set(piece, id)
  }
  for (const [i, t] of added.entries()) {
    if (!t || typeof t.content !== 'string' || !Number.isInteger(t.id))
      bad(`added_tokens[${i}]`, 'expected { id, content }')
    ids.set(t.content, t.id)
  }

  // (left id, right id) -> rank, and the id of what the pair merges into.
  const rank = new Map<number, number>()
  const into = new Map<number, number>()
  model.merges.forEach((m, r) => {
    const [a, b] = typeof m === 'string' ? splitMerge(m) : m
    const left = ids.get(a ?? '')
    const right = ids.get(b ?? '')
    const merged = ids.get(`${a}${b}`)
    if (left === undefined || right === undefined || merged === undefined)
      bad(`model.merges[${r}]`, `${JSON.stringify(m)} names a piece not in the vocabulary`)
    const key = left * PAIR_BASE + right
    if (!rank.has(key)) {
      rank.set(key, r)
      into.set(key, merged)
    }
  })

  const bytes: number[] = []
  if (model.byte_fallback) {
    for (let b = 0; b < 256; b++) {
      const id = ids.get(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`)
      if (id === undefined) bad('model.vocab', `byte_fallback without <0x${b.toString(16)}>`)
      bytes.push(id)
    }
  }
  const unk = model.unk_token != null ? ids.get(model.unk_token) : undefined
  const splitter = addedSplitter(added.map((t) => t.content))
  const utf8 = new TextEncoder()

  /** The initial symbols of one piece: a vocabulary id per character, or its bytes. */
  function symbols(piece: string, out: number[]): void {
    for (const ch of piece) {
      const id = ids.get(ch)
      if (id !== undefined) out.push(id)
      else if (bytes.length > 0) for (const b of utf8.encode(ch)) out.push(bytes[b] as number)
      else if (unk !== undefined) out.push(unk)
    }
  }

  function encodePiece(piece: string, out: number[]): void {
    const sym: number[] = []
    symbols(piece.replaceAll(' ', SPACE), sym)
    const n = sym.length
    if (n < 2) {
      out.push(...sym)
      return
    }
    const next = new Int32Array(n)
    const prev = new Int32Array(n)
    const alive = new Uint8Array(n).fill(1)
    for (let i = 0; i < n; i++) {
      next[i] = i + 1 < n ? i + 1 : -1
      prev[i] = i - 1
    }
    const heap = new PairHeap()
    const push = (i: number) => {
      const j = next[i] as number
      if (j < 0) return
      const key = (sym[i] as number) * PAIR_BASE + (sym[j] as number)
      const r = rank.get(key)
      if (r !== undefined) heap.push(r, i, sym[i] as number, sym[j] as number)
    }
    for (let i = 0; i < n - 1; i++) push(i)
    while (heap.size > 0) {
      const [, i, left, right] = heap.pop()
      const j = next[i] as number
      // Stale: a symbol of the pair was merged away or changed since it was queued.
      if (!alive[i] || j < 0 || sym[i] !== left || sym[j] !== right) continue
      sym[i] = into.get(left * PAIR_BASE + right) as number
      alive[j] = 0
      const k = next[j] as number
      next[i] = k
      if (k >= 0) prev[k] = i
      const p = prev[i] as number
      if (p >= 0) push(p)
      push(i)
    }
    for (let i = 0; i >= 0; i = next[i] as number) out.push(sym[i] as number)
  }

  function encode(text: string): number[] {
    if (typeof text !== 'string') throw new InvalidOptionError('text', 'expected a string')
    const out: number[] = []
    for (const part of splitter(text)) {
      if (typeof part === 'string') encodePiece(part, out)
      else out.push(ids.get(part.token) as number)
    }
    return out
  }

  return { encode, count: (text) => encode(text).length, size: ids.size }
}

/** A merge written as one string: the two pieces around the space that is not part of either. */
function splitMerge(m: string): [string, string] {
  const at = m.indexOf(' ', 1)
  if (at < 0) bad('model.merges', `${JSON.stringify(m)} is not two pieces`)
  return [m.slice(0, at), m.slice(at + 1)]
}

/**
 * Cuts a text at the added tokens, longest match first at each position, in one pass: the
 * tokens are grouped by first character, so a position costs the tokens that start with it.
 */
function addedSplitter(
  tokens: readonly string[],
): (text: string) => (string | { token: string })[] {
  const byFirst = new Map<string, string[]>()
  for (const t of tokens) {
    if (t === '') continue
    const list = byFirst.get(t[0] as string) ?? []
    list.push(t)
    byFirst.set(t[0] as string, list)
  }
  for (const list of byFirst.values()) list.sort((a, b) => b.length - a.length)
  return (text) => {
    const out: (string | { token: string })[] = []
    let from = 0
    for (let i = 0; i < text.length; i++) {
      const list = byFirst.get(text[i] as string)
      if (!list) continue
      const hit = list.find((t) => text.startsWith(t, i))
      if (!hit) continue
      if (i > from) out.push(text.slice(from, i))
      out.push({ token: hit })
      from = i + hit.length
      i = from - 1
    }
    if (from < text.length) out.push(text.slice(from))
    return out
  }
}

/** A binary min-heap of queued pairs by (rank, position). */
class PairHeap {
  private items: [number, number, number, number][] = []
  get size(): number {
    return this.items.length
  }
  push(rank: number, at: number, left: number, right: number): void {
    const items = this.items
    items.push([rank, at, left, right])
    let i = items.length - 1
    while (i > 0) {
      const p = (i - 1) >> 1
      if (!less(items[i] as never, items[p] as never)) break
      ;[items[i], items[p]] = [items[p] as never, items[i] as never]
      i = p
    }
  }
  pop(): [number, number, number, number] {
    const items = this.items
    const top = items[0] as [number, number, number, number]
    const last = items.pop() as [number, number, number, number]
    if (items.length > 0) {
      items[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < items.length && less(items[l] as never, items[m] as never)) m = l
        if (r < items.length && less(items[r] as never, items[m] as never)) m = r
        if (m === i) break
        ;[items[i], items[m]] = [items[m] as never, items[i] as never]
        i = m
      }
    }
    return top
  }
}

function less(a: [number, number], b: [number, number]): boolean {
  return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1])
}
