import type { FitOptions } from '../context/fit.js'
import { ProviderFeedback, type SentCounts } from '../context/limits/learned-limit.js'
import { resolveSetup } from '../context/options/options.js'
import type { AssistantMessage, Message, ToolCall } from '../messages/message.js'
import { inToolExchange } from '../messages/units.js'
import { fieldsOf, isJson } from '../providers/codec-kit.js'
import { numberAs } from '../recall/numbering.js'
import { type AdapterOptions, checkAdapterOptions, fitWithFeedback } from './shared.js'

/** The parts of a Mastra message (`MastraMessageV2`, content format 2) the processor reads. */
interface MastraMessageLike {
  id: string
  role: 'user' | 'assistant' | 'system'
  createdAt: Date
  threadId?: string | undefined
  resourceId?: string | undefined
  content: { format: 2; parts: unknown[]; content?: string } | string
}

type Part = {
  type?: string
  text?: string
  reasoning?: string
  toolInvocation?: {
    state?: string
    toolCallId?: string
    toolName?: string
    args?: unknown
    result?: unknown
  }
}

function json(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v ?? null) ?? '')
}

/**
 * One Mastra message as canonical messages: its text (and reasoning) and tool calls as one
 * assistant message, each answered call's result after it. A call not yet answered is left
 * out of the count (Mastra does not send it either).
 */
function decode(m: MastraMessageLike): Message[] {
  const content = m.content
  if (typeof content === 'string') return [{ role: m.role, content }]
  const texts: string[] = []
  const calls: ToolCall[] = []
  const results: Message[] = []
  let thought = ''
  for (const raw of content.parts ?? []) {
    const p = raw as Part
    if (p.type === 'text' && typeof p.text === 'string') texts.push(p.text)
    else if (p.type === 'reasoning') thought += p.reasoning ?? json(p)
    else if (p.type === 'tool-invocation' && p.toolInvocation) {
      const t = p.toolInvocation
      if (t.state !== 'result' || !t.toolCallId) continue
      calls.push({ id: t.toolCallId, name: t.toolName ?? '', arguments: json(t.args) })
      results.push({
        role: 'tool',
        toolCallId: t.toolCallId,
        content: json(t.result),
        ...(t.toolName && { toolName: t.toolName }),
      })
    } else if (p.type !== 'step-start') texts.push(json(p))
  }
  const text = texts.length ? texts.join('\n') : (content.content ?? '')
  if (m.role !== 'assistant') return [{ role: m.role, content: text }]
  const assistant: AssistantMessage = { role: 'assistant', content: text }
  if (calls.length) assistant.toolCalls = calls
  if (thought) assistant.thought = thought
  return [assistant, ...results]
}

/** Whether `entries` are Mastra's stored messages (content format 2), not another format's. */
export function isMastraHistory(entries: readonly unknown[]): boolean {
  return (
    entries.length > 0 &&
    entries.every((e) => {
      const { content } = fieldsOf(e)
      return isJson(content) && content.format === 2
    })
  )
}

/** Mastra messages as the processor reads them, with the caller's index of each message's entry. */
export function readMastraHistory(entries: readonly unknown[]): {
  messages: Message[]
  places: number[]
} {
  const messages: Message[] = []
  const places: number[] = []
  entries.forEach((m, j) => {
    for (const c of decode(m as MastraMessageLike)) {
      messages.push(c)
      places.push(j)
    }
  })
  return { messages, places }
}

let written = 0

/**
 * A Mastra input processor (`new Agent({ ..., inputProcessors: [fitInputProcessor({ budget: 8000 })] })`)
 * that fits the messages of each call: Mastra's own message objects in and out, each with its
 * tool calls and their results together (Mastra keeps both in one message), so a message is
 * sent whole or not at all. The agent's instructions are not among the messages: give them
 * as `instructions` to count them. With `feedback`, a window learnt from a rejection
 * (`processor.learn(error, { threadId, resourceId })`, read against that thread's last
 * request) and usage (`feedback.observe(result)`) steer later calls.
 */
export function fitInputProcessor(
  options: AdapterOptions & { instructions?: string; name?: string } = {},
) {
  checkAdapterOptions(options, 'fitInputProcessor', ['instructions', 'name'])
  const { instructions, name = 'context-window', ...rest } = options
  const feedback = rest.feedback ?? new ProviderFeedback()
  // Mastra runs input processors once per generate call: the steps after a tool call are
  // sent as Mastra extends the fitted list, unfitted. Room for one such step (the largest
  // tool step the thread has had) is kept beside the reply's reserve: per thread, so one
  // thread's large tool result takes no room from any other.
  const threads = new Threads(THREADS_KEPT)
  return {
    name,
    processInput<M extends MastraMessageLike>({ messages }: { messages: M[] }): M[] {
      const thread = threadOf(messages)
      const stepTokens = threads.get(thread)?.step ?? 0
      const input: Message[] = instructions ? [{ role: 'system', content: instructions }] : []
      const owner: number[] = instructions ? [-1] : []
      messages.forEach((m, j) => {
        for (const c of decode(m)) {
          input.push(c)
          owner.push(j)
        }
      })
      // Numbered as Mastra's messages (their parts read as several); the instructions apart.
      numberAs(input, owner)
      const { feedback: _given, ...fitOptions } = rest
      const reserve =
        stepTokens > 0 ? resolveSetup(fitOptions as FitOptions).reserve + stepTokens : undefined
      const result = fitWithFeedback(input, {
        ...rest,
        ...(reserve !== undefined && { reserve }),
        feedback,
      })
      const perMessage = new Map<number, number>()
      result.fates.forEach((f, i) => {
        const j = owner[i]
        const m = input[i]
        if (j !== undefined && j >= 0 && m && inToolExchange(m))
          perMessage.set(j, (perMessage.get(j) ?? 0) + f.tokens)
      })
      let largest = stepTokens
      for (const t of perMessage.values()) largest = Math.max(largest, t)
      // Only the counts (five numbers), not the fitted messages, are kept per thread.
      threads.set(thread, { step: largest, sent: { tokens: result.tokens } })
      // A Mastra message goes when any part of it went: its parts travel together.
      const gone = new Set<number>()
      const at = new Map<number, number>()
      result.fates.forEach((f, i) => {
        const j = owner[i]
        if (f.position !== undefined) at.set(f.position, i)
        else if (j !== undefined && j >= 0) gone.add(j)
      })
      const out: M[] = []
      let next = 0
      const inserted = new Map(result.inserted.map((s) => [s.position, s]))
      // Mastra orders a conversation by createdAt: a message the library writes takes the
      // time just before the message it precedes, so it stays in its place.
      const timeAfter = (p: number): Date => {
        for (let q = p + 1; q < result.messages.length; q++) {
          const k = at.get(q)
          const j = k === undefined ? undefined : owner[k]
          const when = j !== undefined && j >= 0 ? messages[j]?.createdAt : undefined
          if (when instanceof Date) return new Date(when.getTime() - 1)
        }
        return new Date()
      }
      result.messages.forEach((m, p) => {
        const synthetic = inserted.get(p)
        if (synthetic) {
          out.push({
            id: `context-window-${++written}`,
            role: m.role === 'assistant' ? 'assistant' : m.role === 'system' ? 'system' : 'user',
            createdAt: timeAfter(p),
            content: {
              format: 2,
              parts: [{ type: 'text', text: json(m.content) }],
              content: json(m.content),
            },
          } as M)
          return
        }
        const k = at.get(p)
        const j = k === undefined ? undefined : owner[k]
        const entry = j === undefined ? undefined : messages[j]
        if (j === undefined || entry === undefined || j < 0 || gone.has(j) || j < next) return
        out.push(entry)
        next = j + 1
      })
      return out
    },
    /**
     * `feedback.learn(error)` for a call on one thread: the rejection is read against our
     * count of that thread's last request, not of whichever thread was fitted last. Returns
     * the report, or undefined when the error is not a "too long" rejection.
     */
    learn(error: unknown, thread?: { threadId?: string; resourceId?: string }) {
      const key = thread ? threadKey(thread.threadId, thread.resourceId) : ''
      return feedback.learn(error, threads.get(key)?.sent)
    },
    /** Forgets what a thread taught (its tool steps), as when the thread is deleted. */
    forgetThread(threadId: string, resourceId?: string): void {
      threads.delete(threadKey(threadId, resourceId))
    },
    feedback,
  }
}

/** Threads whose tool steps a processor remembers; the least recently used go first. */
const THREADS_KEPT = 4096

function threadKey(threadId: string | undefined, resourceId: string | undefined): string {
  return threadId === undefined ? '' : `${resourceId ?? ''}\u0000${threadId}`
}

/**
 * The thread a call's messages belong to (Mastra stamps `threadId` and `resourceId` on the
 * messages memory loads and saves). Messages with none, as without memory, share one key.
 */
function threadOf(messages: readonly MastraMessageLike[]): string {
  for (const m of messages)
    if (typeof m?.threadId === 'string')
      return threadKey(m.threadId, typeof m.resourceId === 'string' ? m.resourceId : undefined)
  return ''
}

/** What a thread taught: its largest tool step, and our count of its last fitted request. */
interface ThreadState {
  step: number
  sent: SentCounts
}

/** Per-thread state for at most `size` threads (a Map kept in use order: the oldest go first). */
class Threads {
  private readonly states = new Map<string, ThreadState>()
  constructor(private readonly size: number) {}

  get(thread: string): ThreadState | undefined {
    const s = this.states.get(thread)
    if (s === undefined) return undefined
    this.states.delete(thread)
    this.states.set(thread, s)
    return s
  }

  set(thread: string, state: ThreadState): void {
    this.states.delete(thread)
    this.states.set(thread, state)
    for (const oldest of this.states.keys()) {
      if (this.states.size <= this.size) break
      this.states.delete(oldest)
    }
  }

  delete(thread: string): void {
    this.states.delete(thread)
  }
}
