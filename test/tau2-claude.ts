import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import type { TauRecord } from './tau-bench.js'

/**
 * τ²-bench airline conversations run by a Claude Sonnet 4.5 agent (sierra-research/tau2-bench,
 * MIT), kept in the repository: one JSON object, gzipped.
 */
export const TAU2_CLAUDE_PATH = fileURLToPath(
  new URL('./data/tau2-claude/airline-claude-sonnet-4-5-dev.json.gz', import.meta.url),
)

/** A message as τ²-bench writes it (only the fields read here). */
export interface Tau2Message {
  role: string
  content?: unknown
  tool_calls?: { id?: unknown; name?: unknown; arguments?: unknown }[] | null
  /** On a tool result: the id of the call it answers. */
  id?: unknown
}

export interface Tau2Simulation {
  task_id: string | number
  messages: Tau2Message[]
}

export interface Tau2File {
  info: { environment_info: { policy: string } }
  simulations: Tau2Simulation[]
}

let file: Tau2File | undefined
/** The file as stored. */
export function tau2ClaudeFile(): Tau2File {
  file ??= JSON.parse(gunzipSync(readFileSync(TAU2_CLAUDE_PATH)).toString('utf8')) as Tau2File
  return file
}

type Chat = Record<string, unknown>

const text = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content
          .map((p) =>
            p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string'
              ? (p as { text: string }).text
              : '',
          )
          .join('')
      : ''

/**
 * One simulation as an OpenAI chat history: the policy as the system message, assistant
 * `tool_calls` with JSON-string arguments, tool results with `tool_call_id`. Messages with
 * no text and no calls are left out; a tool result whose call is not open, and a call that no
 * result answers, are left out too, so every call is answered by the results right after it.
 */
export function tau2ToChat(policy: string, messages: readonly Tau2Message[]): Chat[] {
  const out: Chat[] = policy.trim() ? [{ role: 'system', content: policy }] : []
  // Calls of the newest assistant message still waiting for their result.
  let open: { message: Chat; calls: Chat[]; answered: Set<string> } | undefined
  const close = () => {
    if (!open) return
    const calls = open.calls.filter((c) => open?.answered.has(c.id as string))
    if (calls.length > 0) open.message.tool_calls = calls
    else {
      delete open.message.tool_calls
      if (open.message.content === null) out.splice(out.indexOf(open.message), 1)
    }
    open = undefined
  }
  for (const m of messages) {
    const content = text(m.content)
    if (m.role === 'tool') {
      const id = typeof m.id === 'string' ? m.id : undefined
      if (!open || id === undefined || open.answered.has(id)) continue
      if (!open.calls.some((c) => c.id === id)) continue
      open.answered.add(id)
      out.push({ role: 'tool', tool_call_id: id, content })
      continue
    }
    close()
    if (m.role === 'assistant') {
      const seen = new Set<string>()
      const calls: Chat[] = []
      for (const c of m.tool_calls ?? []) {
        if (typeof c?.id !== 'string' || !c.id || seen.has(c.id)) continue
        if (typeof c.name !== 'string' || !c.name) continue
        seen.add(c.id)
        const args =
          typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {})
        calls.push({ id: c.id, type: 'function', function: { name: c.name, arguments: args } })
      }
      if (calls.length === 0 && !content.trim()) continue
      const message: Chat = { role: 'assistant', content: content.trim() ? content : null }
      out.push(message)
      if (calls.length > 0) open = { message, calls, answered: new Set() }
    } else if (m.role === 'user' && content.trim()) {
      out.push({ role: 'user', content })
    }
  }
  close()
  return out
}

const taskNumber = (id: string | number, k: number): number =>
  typeof id === 'number' ? id : /^\d+$/.test(id) ? Number(id) : -1 - k

let cached: TauRecord[] | undefined
/** Every simulation as `{ task_id, traj }`, in file order, like `tauBench()`. */
export function tau2Claude(): TauRecord[] {
  const { info, simulations } = tau2ClaudeFile()
  cached ??= simulations.map((s, k) => ({
    task_id: taskNumber(s.task_id, k),
    traj: tau2ToChat(info.environment_info.policy, s.messages),
  }))
  return cached
}
