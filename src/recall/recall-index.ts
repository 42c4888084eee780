import { contentText, type Message } from '../messages/message.js'
import { messageSecrets } from '../messages/quoted-facts.js'
import type { Who } from '../messages/records.js'
import { SecretSet } from './secret-set.js'
import { eachWordRange, fold, hashOf } from './terms.js'

/** Who wrote a message, shared by every message of a role with no tool. */
const PLAIN: Record<string, Who> = {}
function plain(role: Message['role']): Who {
  let who = PLAIN[role]
  if (!who) {
    who = Object.freeze({ role }) as Who
    PLAIN[role] = who
  }
  return who
}

/**
 * What recall searches, kept as a history grows: for each message who wrote it (the tool
 * named by its call id), how many distinct words it holds, and for each word the messages
 * holding it; and every credential any message holds. Each message is read once, when it
 * is added; a search costs the postings of the words it asks for.
 */
export class RecallIndex {
  /** The messages read, as the same objects (what a later history is checked against). */
  readonly messages: Message[] = []
  readonly who: Who[] = []
  /** Distinct words of each message (its length, for BM25). */
  lengths = new Int32Array(64)
  /** Sum of `lengths`, and the largest. */
  totalLength = 0
  longest = 0
  /** Positions of system messages (never recalled). */
  readonly systems: number[] = []
  secrets = new SecretSet()
  /**
   * Words, each with an id: an open-addressing table of ids (plus one, 0 for none) by the
   * word's hash, so a word is looked up where the text holds it, with no string made for it.
   * A word's code units are kept in one arena (`chars`, from `starts[id]`, `ends[id]`), read
   * when a hash matches.
   */
  private table = new Int32Array(1 << 12)
  private chars = new Uint16Array(1 << 14)
  private used = 0
  private starts = new Int32Array(1 << 11)
  private ends = new Int32Array(1 << 11)
  private hashes = new Int32Array(1 << 11)
  /** The message that last took each word, plus one (a word twice in a message is taken once). */
  private last = new Int32Array(1 << 11)
  private wordCount = 0
  /** For each word id: the messages holding it, ascending (grown by doubling), and how many. */
  private readonly postings: Int32Array[] = []
  private counts = new Int32Array(1 << 11)
  /** The message being read, its text in lower case, and its distinct words so far. */
  private at = 0
  private text = ''
  private size = 0
  private readonly visit = (a: number, b: number, h: number): void => this.take(a, b, h)
  /** Tool names by call id, as the assistant messages read so far named them. */
  private readonly names = new Map<string, string>()
  /** The messages of each tool (its results and calls), by its name in lower case. */
  private readonly byTool = new Map<string, number[]>()

  get length(): number {
    return this.messages.length
  }

  /**
   * Takes `first` as its first message in place of one of the same role and text (a system
   * prompt made again for the call, from the same string): nothing it holds changes, so
   * nothing is copied or read again. False when they differ (then `withFirst`), or either names
   * tools.
   */
  reheaded(first: Message): boolean {
    const old = this.messages[0]
    if (!old || old.role !== first.role || namesTools(old) || namesTools(first)) return false
    if (old !== first && contentText(old.content) !== contentText(first.content)) return false
    this.messages[0] = first
    return true
  }

  /**
   * This index with its first message replaced by `first` (a system prompt made again for
   * each call, the rest of the history the same objects): a copy, the old first message's
   * words taken out of their postings and the new one's put in. Undefined when either first
   * message names tools (the writers of later messages would change with it).
   */
  withFirst(first: Message): RecallIndex | undefined {
    const old = this.messages[0]
    if (!old || namesTools(old) || namesTools(first)) return undefined
    const x = new RecallIndex()
    x.table = this.table.slice()
    x.chars = this.chars.slice(0, Math.max(this.used, 1))
    x.used = this.used
    x.starts = this.starts.slice()
    x.ends = this.ends.slice()
    x.hashes = this.hashes.slice()
    x.last = new Int32Array(this.last.length)
    x.wordCount = this.wordCount
    x.counts = this.counts.slice()
    for (let id = 0; id < this.wordCount; id++)
      x.postings.push(
        (this.postings[id] as Int32Array).slice(0, Math.max(2, this.counts[id] as number)),
      )
    x.lengths = this.lengths.slice()
    x.totalLength = this.totalLength
    x.longest = this.longest
    for (let i = 0; i < this.messages.length; i++) {
      x.messages.push(this.messages[i] as Message)
      x.who.push(this.who[i] as Who)
    }
    for (const i of this.systems) if (i !== 0) x.systems.push(i)
    if (first.role === 'system') x.systems.unshift(0)
    // A secret only the old first message held is kept: it is taken out of more, never less.
    x.secrets = this.secrets.copy()
    for (const s of messageSecrets(first)) x.secrets.add(s)
    for (const [k, v] of this.names) x.names.set(k, v)
    for (const [k, v] of this.byTool) x.byTool.set(k, [...v])
    // Message 0 is first in every list holding it: taken out, then the new one's put first.
    x.at = 0
    x.eachWordOf(old, (id) => {
      const list = x.postings[id] as Int32Array
      const n = x.counts[id] as number
      if (n > 0 && list[0] === 0) {
        list.copyWithin(0, 1, n)
        x.counts[id] = n - 1
      }
    })
    x.totalLength -= x.lengths[0] as number
    let size = 0
    x.eachWordOf(first, (id) => {
      let list = x.postings[id] as Int32Array
      const n = x.counts[id] as number
      if (n > 0 && list[0] === 0) return
      if (n === list.length) {
        list = grow(list, n * 2)
        x.postings[id] = list
      }
      list.copyWithin(1, 0, n)
      list[0] = 0
      x.counts[id] = n + 1
      size++
    })
    x.lengths[0] = size
    x.totalLength += size
    if (size > x.longest) x.longest = size
    x.messages[0] = first
    x.who[0] = plain(first.role)
    x.last.fill(0)
    return x
  }

  /** Calls `use` with the id of each word `m` holds (adding words not known yet), once each. */
  private eachWordOf(m: Message, use: (id: number) => void): void {
    const seen = new Set<number>()
    const visit = (a: number, b: number, h: number) => {
      let id = this.find(this.text, a, b, h)
      if (id < 0) id = this.insert(this.text, a, b, h, -id - 1)
      if (seen.has(id)) return
      seen.add(id)
      use(id)
    }
    const text = contentText(m.content)
    if (text === '') return
    this.text = fold(text)
    eachWordRange(this.text, visit)
    this.text = ''
  }

  /** Reads the messages of `history` from the first not read yet. */
  extend(history: readonly Message[]): void {
    for (let i = this.messages.length; i < history.length; i++) this.add(history[i] as Message)
  }

  add(m: Message): void {
    const i = this.messages.length
    const who = this.writer(m)
    this.at = i
    this.size = 0
    this.read(contentText(m.content))
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) this.read(c.arguments)
    for (const t of who.tools ?? []) {
      this.read(t)
      const key = fold(t)
      const list = this.byTool.get(key)
      if (!list) this.byTool.set(key, [i])
      else if (list[list.length - 1] !== i) list.push(i)
    }
    // A credential any message holds is returned from none (bare in one, under a key in
    // another). Its credentials only, kept per message (the ledger reads the same), not its facts.
    for (const s of messageSecrets(m)) this.secrets.add(s)
    if (m.role === 'system') this.systems.push(i)
    if (i === this.lengths.length) {
      const grown = new Int32Array(this.lengths.length * 2)
      grown.set(this.lengths)
      this.lengths = grown
    }
    this.lengths[i] = this.size
    this.totalLength += this.size
    if (this.size > this.longest) this.longest = this.size
    this.text = ''
    this.messages.push(m)
    this.who.push(who)
  }

  /** Adds the words of `text` to the message being read. */
  private read(text: string): void {
    if (text === '') return
    this.text = fold(text)
    eachWordRange(this.text, this.visit)
  }

  /** Adds the word at `[a, b)` of the text being read to the message being read. */
  private take(a: number, b: number, h: number): void {
    const s = this.text
    let id = this.find(s, a, b, h)
    if (id < 0) id = this.insert(s, a, b, h, -id - 1)
    const mark = this.at + 1
    if (this.last[id] === mark) return
    this.last[id] = mark
    const n = this.counts[id] as number
    let list = this.postings[id] as Int32Array
    if (n === list.length) {
      const grown = new Int32Array(n * 2)
      grown.set(list)
      list = grown
      this.postings[id] = list
    }
    list[n] = this.at
    this.counts[id] = n + 1
    this.size++
  }

  /** The id of the word at `[a, b)` of `s`, else minus one less than the free slot for it. */
  private find(s: string, a: number, b: number, h: number): number {
    const table = this.table
    const mask = table.length - 1
    const hashes = this.hashes
    let slot = h & mask
    for (;;) {
      const e = table[slot] as number
      if (e === 0) return -slot - 1
      const id = e - 1
      if (hashes[id] === h && this.spells(id, s, a, b)) return id
      slot = (slot + 1) & mask
    }
  }

  /** Whether word `id` is the code units `[a, b)` of `s`. */
  private spells(id: number, s: string, a: number, b: number): boolean {
    const start = this.starts[id] as number
    if ((this.ends[id] as number) - start !== b - a) return false
    const chars = this.chars
    for (let i = a, j = start; i < b; i++, j++) if (chars[j] !== s.charCodeAt(i)) return false
    return true
  }

  private insert(s: string, a: number, b: number, h: number, slot: number): number {
    const id = this.wordCount++
    if (id === this.hashes.length) {
      const size = id * 2
      this.starts = grow(this.starts, size)
      this.ends = grow(this.ends, size)
      this.hashes = grow(this.hashes, size)
      this.last = grow(this.last, size)
      this.counts = grow(this.counts, size)
    }
    if (this.used + (b - a) > this.chars.length) {
      const chars = new Uint16Array(Math.max(this.chars.length * 2, this.used + (b - a)))
      chars.set(this.chars)
      this.chars = chars
    }
    this.starts[id] = this.used
    for (let i = a; i < b; i++) this.chars[this.used++] = s.charCodeAt(i)
    this.ends[id] = this.used
    this.hashes[id] = h
    this.postings.push(new Int32Array(2))
    this.table[slot] = id + 1
    // Kept at most half full: the table doubles and every id goes to its new slot.
    if (this.wordCount * 2 > this.table.length) {
      const table = new Int32Array(this.table.length * 2)
      const mask = table.length - 1
      for (let k = 0; k < this.wordCount; k++) {
        let at = (this.hashes[k] as number) & mask
        while (table[at] !== 0) at = (at + 1) & mask
        table[at] = k + 1
      }
      this.table = table
    }
    return id
  }

  /** The messages holding `word`, ascending (a view: read it before the next `add`). */
  holding(word: string): Int32Array {
    const id = this.find(word, 0, word.length, hashOf(word, 0, word.length))
    return id < 0 ? EMPTY : (this.postings[id] as Int32Array).subarray(0, this.counts[id])
  }

  /** The messages of the tool named `name` (folded, as `fold` gives it): its calls and results, ascending. */
  ofTool(name: string): readonly number[] {
    return this.byTool.get(name) ?? NONE
  }

  /** Whether message `i` holds `word` (a binary search of its postings). */
  holds(i: number, word: string): boolean {
    return sortedHas(this.holding(word), i)
  }

  /** True when the first `length` messages of `history` are the ones read, as the same objects. */
  isPrefixOf(history: readonly Message[]): boolean {
    const read = this.messages
    if (read.length > history.length) return false
    // Newest first: an edited list usually differs near its end.
    for (let i = read.length - 1; i >= 0; i--) if (read[i] !== history[i]) return false
    return true
  }

  private writer(m: Message): Who {
    if (m.role === 'assistant' && m.toolCalls?.length) {
      for (const c of m.toolCalls) this.names.set(c.id, c.name)
      return { role: 'assistant', tools: m.toolCalls.map((c) => c.name) }
    }
    if (m.role !== 'tool') return plain(m.role)
    const name = m.toolName ?? this.names.get(m.toolCallId)
    return name === undefined ? plain('tool') : { role: 'tool', tools: [name] }
  }
}

const EMPTY = new Int32Array(0)

/** Whether a message names tools (an assistant's calls, a tool's result). */
function namesTools(m: Message): boolean {
  return m.role === 'tool' || (m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0)
}

/** `list` copied into a new array of `size` (the rest zero). */
function grow(list: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const out = new Int32Array(size)
  out.set(list)
  return out
}
const NONE: readonly number[] = []

/**
 * Indexes of histories seen before: by the array itself (an agent loop that pushes to one
 * array), else by its first message (a new array each call built from the same message
 * objects), else by its second (the same history behind a system prompt made again for the
 * call). Either way only the messages appended since are read (and a new first message).
 */
const byArray = new WeakMap<object, RecallIndex>()
const byHead = new WeakMap<object, RecallIndex[]>()
const bySecond = new WeakMap<object, RecallIndex[]>()
/** Indexes kept per first (or second) message: conversations that share one (a system prompt object). */
const PER_HEAD = 4

/** Whether `index` read `history` but for its first message: the same objects from the second on. */
function readBehindHead(index: RecallIndex, history: readonly Message[]): boolean {
  const read = index.messages
  if (read.length < 2 || read.length > history.length) return false
  for (let i = read.length - 1; i >= 1; i--) if (read[i] !== history[i]) return false
  return true
}

/**
 * Keeps `index` in `map` under `key`, replacing one of the same conversation (`extends`), at
 * most `PER_HEAD` per key.
 */
function remember(
  map: WeakMap<object, RecallIndex[]>,
  key: object,
  index: RecallIndex,
  extends_: (x: RecallIndex, index: RecallIndex) => boolean,
): void {
  const list = map.get(key) ?? []
  if (list.includes(index)) return
  // An index this one extends is the same conversation: replaced, not kept beside it.
  const same = list.findIndex((x) => extends_(x, index))
  if (same >= 0) list[same] = index
  else {
    if (list.length >= PER_HEAD) list.shift()
    list.push(index)
  }
  map.set(key, list)
}

/**
 * The recall index of `history`: one read before when its messages are the same objects
 * (then only what was appended is read; a new first message is read in place of the old),
 * else a new one. A message replaced in the array is seen (the index is made again); an
 * object edited in place is not (pass a new object).
 */
export function recallIndexOf(history: readonly Message[]): RecallIndex {
  const head = history[0]
  const second = history[1]
  let index = byArray.get(history)
  if (!index?.isPrefixOf(history)) {
    index = head ? byHead.get(head)?.find((x) => x.isPrefixOf(history)) : undefined
    if (!index && head && second) {
      const behind = bySecond.get(second)?.find((x) => readBehindHead(x, history))
      index = behind?.reheaded(head) ? behind : behind?.withFirst(head)
    }
    index ??= new RecallIndex()
  }
  index.extend(history)
  byArray.set(history, index)
  if (head) remember(byHead, head, index, (x, y) => x.isPrefixOf(y.messages))
  // Behind a first message made again, the newest index of the conversation is the one kept.
  if (second) remember(bySecond, second, index, (x, y) => readBehindHead(x, y.messages))
  return index
}

/** Whether ascending `at` holds `i` (a binary search). */
export function sortedHas(at: Int32Array, i: number): boolean {
  let lo = 0
  let hi = at.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const v = at[mid] as number
    if (v === i) return true
    if (v < i) lo = mid + 1
    else hi = mid
  }
  return false
}
