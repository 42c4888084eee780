import { contentText, type Message } from '../messages/message.js'
import { name, oneLine, quote } from '../messages/records.js'
import { requireArgument, requireOptions } from '../options-check.js'
import { terms_ } from '../strategies/query-terms.js'
import type { TokenCounter } from '../tokens/counter.js'
import { exactCounter } from '../tokens/counters.js'
import type { Summarizer } from './summarizer.js'

export interface ExtractiveOptions {
  /** Counts the summary against `maxTokens`. Default: exact o200k. */
  counter?: TokenCounter
}

/** How wide each kind of line may be, from roomy to terse: the summary narrows before it drops. */
const WIDTHS = [
  { request: 240, args: 160, result: 120 },
  { request: 160, args: 120, result: 60 },
  { request: 120, args: 90, result: 30 },
  { request: 100, args: 70, result: 0 },
  { request: 80, args: 50, result: 0 },
  { request: 60, args: 40, result: 0 },
  { request: 40, args: 30, result: 0 },
] as const
type Widths = (typeof WIDTHS)[number]

/** A line the summary must keep: a user request, or a tool call with its outcome. */
interface Kept {
  at: number
  render: (w: Widths) => string
}

/**
 * An offline summarizer, no model. It keeps, in their original order, every user request
 * and every tool call with its key arguments and its outcome (ok or failed, and the start
 * of what it returned); lines get terser before any is dropped. The room left goes to the
 * most informative sentences of the assistant's text (figures, names, rare words). The
 * default, so compression works with no server.
 */
export function extractiveSummarizer(options: ExtractiveOptions = {}): Summarizer {
  requireOptions(options, 'extractiveSummarizer', ['counter'])
  requireArgument(
    options.counter === undefined || typeof options.counter?.countText === 'function',
    'extractiveSummarizer',
    'counter',
    'a token counter',
    options.counter,
  )
  const counter = options.counter ?? exactCounter()
  return {
    name: 'extractive',
    toJSON: () => 'extractive',
    async summarize({ messages, previousSummary, maxTokens }) {
      const kept: Kept[] = []
      const results = new Map<string, Message & { role: 'tool' }>()
      const called = new Set<string>()
      for (const m of messages) {
        if (m.role === 'tool') results.set(m.toolCallId, m)
        if (m.role === 'assistant') for (const c of m.toolCalls ?? []) called.add(c.id)
      }
      const split: { text: string; at: number; terms: string[] }[] = []
      const df = new Map<string, number>()
      messages.forEach((m, at) => {
        if (m.role === 'user') {
          const text = oneLine(contentText(m.content))
          if (text) kept.push({ at, render: (w) => `${speaker(m)}: ${clip(text, w.request)}` })
          return
        }
        if (m.role === 'tool') {
          // A result whose call is not in this range still says what happened.
          if (called.has(m.toolCallId)) return
          kept.push({ at, render: (w) => `${name(m.toolName ?? 'tool')} ${outcome(m, w.result)}` })
          return
        }
        if (m.role === 'assistant') {
          for (const c of m.toolCalls ?? []) {
            const result = results.get(c.id)
            kept.push({
              at,
              render: (w) =>
                `called ${name(c.name)}(${keyArguments(c.arguments, w.args)}) -> ${result ? outcome(result, w.result) : 'no result'}`,
            })
          }
        }
        const who = speaker(m)
        for (const s of contentText(m.content).split(/(?<=[.!?])\s+|\n+/)) {
          // One line each: a sentence never opens a line of its own (a CR, NEL or LS in it).
          const text = oneLine(s)
          if (text.length < 12) continue
          const terms = terms_(text)
          for (const t of new Set(terms)) df.set(t, (df.get(t) ?? 0) + 1)
          split.push({ text: `${who}: ${text}`, at, terms })
        }
      })

      // The running summary's lines come first; they go (oldest first) only when even the
      // tersest lines of the new messages do not fit beside them.
      const previous = previousSummary ? previousSummary.split('\n').filter(Boolean) : []
      const cost = (lines: readonly string[]) =>
        lines.reduce((n, l) => n + counter.countText(`${l}\n`), 0)
      let widths: Widths = WIDTHS[0]
      let lines = kept.map((k) => k.render(widths))
      for (const w of WIDTHS) {
        widths = w
        lines = kept.map((k) => k.render(w))
        if (cost(previous) + cost(lines) <= maxTokens) break
      }
      let used = cost(previous) + cost(lines)
      while (used > maxTokens && previous.length > 0)
        used -= counter.countText(`${previous.shift()}\n`)
      const keptAt = kept.map((k) => k.at)
      while (used > maxTokens && lines.length > 0) {
        used -= counter.countText(`${lines.shift()}\n`)
        keptAt.shift()
      }

      // The room left: the most informative sentences, in their original order.
      const n = split.length || 1
      const scored = split.map((s) => {
        let score = 0
        for (const t of new Set(s.terms)) score += Math.log(1 + n / (df.get(t) ?? 1))
        if (/\d/.test(s.text)) score *= 1.5
        if (/https?:\/\//.test(s.text)) score *= 1.5
        return { ...s, score: score / Math.sqrt(s.terms.length + 1) }
      })
      const order = scored
        .map((_, k) => k)
        .sort((a, b) => (scored[b]?.score ?? 0) - (scored[a]?.score ?? 0))
      const chosen = new Set<number>()
      for (const k of order) {
        const t = counter.countText(`${scored[k]?.text}\n`)
        if (used + t > maxTokens) continue
        chosen.add(k)
        used += t
      }
      const body = [
        ...lines.flatMap((text, k) => {
          const at = keptAt[k]
          return at === undefined ? [] : [{ text, at, rank: 0 }]
        }),
        ...scored.flatMap((s, k) => (chosen.has(k) ? [{ text: s.text, at: s.at, rank: 1 }] : [])),
      ].sort((a, b) => a.at - b.at || a.rank - b.rank)
      return [...previous, ...body.map((b) => b.text)].join('\n')
    },
  }
}

/** The writer's role, and a speaker's name after it: a name never stands for a role (`user (ana)`). */
function speaker(m: Message): string {
  return m.name ? `${m.role} (${name(m.name)})` : m.role
}

function clip(text: string, width: number): string {
  const t = oneLine(text)
  if (width <= 0) return ''
  if (t.length <= width) return t
  // Never half a surrogate pair: a lone one is invalid UTF-16, refused by providers.
  const end = width >= 2 && /[\uD800-\uDBFF]/.test(t.charAt(width - 2)) ? width - 2 : width - 1
  return `${t.slice(0, end)}…`
}

/**
 * A call's arguments as `key=value`, scalars first; nested values by their own scalars. A
 * value is written bare only when it is a plain word, else quoted (cut inside its quotes), so
 * no argument can close the call's parentheses or state its outcome (`") -> ok`).
 */
function keyArguments(raw: string, width: number): string {
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    return shownText(raw, width)
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return shownText(raw, width)
  const entries = Object.entries(parsed)
  const each = Math.max(8, Math.floor(width / Math.max(1, entries.length)))
  let out = ''
  for (const [k, v] of entries) {
    const part = `${out ? ', ' : ''}${name(k)}=${shownText(flat(v, 0), each)}`
    if (out && out.length + part.length > width) return `${out}, …`
    out += part
  }
  return out
}

/** A plain value (`8JX2WO`, `42`, `true`) as it is; any other cut to `width` and quoted. */
function shownText(text: string, width: number): string {
  const t = oneLine(text)
  return PLAIN.test(t) && t.length <= width ? t : quote(clip(text, width))
}
const PLAIN = /^[\p{L}\p{N}_.@+-]{1,64}$/u

/** A value in few characters: strings bare, objects by their scalar values. */
function flat(v: unknown, depth: number): string {
  if (v === null || v === undefined) return String(v)
  if (typeof v === 'string') return v
  if (typeof v !== 'object') return String(v)
  if (depth > 3) return '…'
  if (Array.isArray(v)) return `[${v.map((x) => flat(x, depth + 1)).join('; ')}]`
  return Object.values(v)
    .filter((x) => x === null || typeof x !== 'object' || depth < 2)
    .map((x) => flat(x, depth + 1))
    .join(' ')
}

/** `ok` or `failed`, and the start of what came back. */
function outcome(m: Message & { role: 'tool' }, width: number): string {
  const status = m.isError ? 'failed' : 'ok'
  const text = oneLine(contentText(m.content))
  if (!text || width <= 0) return status
  let shown: string = text
  try {
    const parsed: unknown = JSON.parse(text)
    if (parsed && typeof parsed === 'object') shown = flat(parsed, 0)
  } catch {
    // Plain text: shown as it is.
  }
  // Quoted: what came back cannot read as the next call or another outcome.
  return `${status}: ${shownText(shown, width)}`
}
