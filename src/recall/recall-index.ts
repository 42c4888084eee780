import { contentText, type Message } from '../messages/message.js'
import { quotableFacts } from '../messages/quoted-facts.js'
import type { Who } from '../messages/records.js'
import { SecretSet } from './secret-set.js'
import { eachWord } from './terms.js'

/** The messages holding one word, ascending (grown by doubling). */
interface Postings {
  at: Int32Array
  n: number
}

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
  /** Sum of `lengths`. */
  totalLength = 0
  /** Positions of system messages (never recalled). */
  readonly systems: number[] = []
  readonly secrets = new SecretSet()
  private readonly postings = new Map<string, Postings>()
  /** Tool names by call id, as the assistant messages read so far named them. */
  private readonly names = new Map<string, string>()
  /** The messages of each tool (its results and calls), by its name in lower case. */
  private readonly byTool = new Map<string, number[]>()

  get length(): number {
    return this.messages.length
  }

  /** Reads the messages of `history` from the first not read yet. */
  extend(history: readonly Message[]): void {
    for (let i = this.messages.length; i < history.length; i++) this.add(history[i] as Message)
  }

  add(m: Message): void {
    const i = this.messages.length
    const who = this.writer(m)
    let size = 0
    const add = (w: string) => {
      let p = this.postings.get(w)
      if (!p) {
        p = { at: new Int32Array(2), n: 0 }
        this.postings.set(w, p)
      } else if (p.at[p.n - 1] === i) return
      if (p.n === p.at.length) {
        const grown = new Int32Array(p.at.length * 2)
        grown.set(p.at)
        p.at = grown
      }
      p.at[p.n++] = i
      size++
    }
    eachWord(contentText(m.content), add)
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) eachWord(c.arguments, add)
    for (const t of who.tools ?? []) {
      eachWord(t, add)
      const key = t.toLowerCase()
      const list = this.byTool.get(key)
      if (!list) this.byTool.set(key, [i])
      else if (list[list.length - 1] !== i) list.push(i)
    }
    // A credential any message holds is returned from none (bare in one, under a key in
    // another). Read as the ledger reads it (the tool named for a result), so it is read once.
    const tool = m.role === 'tool' ? who.tools?.[0] : undefined
    for (const s of quotableFacts(m, tool).secrets) this.secrets.add(s)
    if (m.role === 'system') this.systems.push(i)
    if (i === this.lengths.length) {
      const grown = new Int32Array(this.lengths.length * 2)
      grown.set(this.lengths)
      this.lengths = grown
    }
    this.lengths[i] = size
    this.totalLength += size
    this.messages.push(m)
    this.who.push(who)
  }

  /** The messages holding `word`, ascending (a view: read it before the next `add`). */
  holding(word: string): Int32Array {
    const p = this.postings.get(word)
    return p ? p.at.subarray(0, p.n) : EMPTY
  }

  /** The messages of the tool named `name` (in lower case): its calls and results, ascending. */
  ofTool(name: string): readonly number[] {
    return this.byTool.get(name) ?? NONE
  }

  /** Whether message `i` holds `word` (a binary search of its postings). */
  holds(i: number, word: string): boolean {
    const at = this.holding(word)
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
const NONE: readonly number[] = []

/**
 * Indexes of histories seen before: by the array itself (an agent loop that pushes to one
 * array), else by its first message (a new array each call built from the same message
 * objects). Either way only the messages appended since are read.
 */
const byArray = new WeakMap<object, RecallIndex>()
const byHead = new WeakMap<object, RecallIndex[]>()
/** Indexes kept per first message: conversations that share one (a system prompt object). */
const PER_HEAD = 4

/**
 * The recall index of `history`: one read before when its messages are the same objects
 * (then only what was appended is read), else a new one. A message replaced in the array is
 * seen (the index is made again); an object edited in place is not (pass a new object).
 */
export function recallIndexOf(history: readonly Message[]): RecallIndex {
  const head = history[0]
  let index = byArray.get(history)
  if (!index?.isPrefixOf(history)) {
    index = head ? byHead.get(head)?.find((x) => x.isPrefixOf(history)) : undefined
    index ??= new RecallIndex()
  }
  index.extend(history)
  byArray.set(history, index)
  if (head) {
    const list = byHead.get(head) ?? []
    if (!list.includes(index)) {
      // An index this one extends is the same conversation: replaced, not kept beside it.
      const same = list.findIndex((x) => x.isPrefixOf(index.messages))
      if (same >= 0) list[same] = index
      else {
        if (list.length >= PER_HEAD) list.shift()
        list.push(index)
      }
      byHead.set(head, list)
    }
  }
  return index
}
