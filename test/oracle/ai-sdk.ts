// The AI SDK's prompt rules for tool calls, written from its documentation and the
// providers' request rules, apart from the library: this file imports nothing from src/.
import { encode } from 'gpt-tokenizer/encoding/o200k_base'

type Part = {
  type?: string
  toolCallId?: string
  providerExecuted?: boolean
  text?: string
  input?: unknown
  output?: unknown
}
type Msg = { role?: string; content?: unknown }

const partsOf = (m: Msg): Part[] => (Array.isArray(m.content) ? (m.content as Part[]) : [])

/**
 * Every rule a `ModelMessage[]` (or a provider prompt) breaks, as sentences; none means the
 * providers can be sent it:
 * - a client-executed call is answered by a result in the tool messages right after its
 *   assistant message, and every such result answers one;
 * - a provider-executed call (`providerExecuted: true`) has its result in the same assistant
 *   message, and a result in an assistant message answers a provider-executed call there;
 * - no call id is used twice.
 */
export function aiSdkViolations(messages: readonly unknown[]): string[] {
  const out: string[] = []
  const seen = new Set<string>()
  let open = new Set<string>()
  const close = (i: number) => {
    for (const id of open) out.push(`message ${i}: call ${id} has no result after it`)
    open = new Set()
  }
  ;(messages as Msg[]).forEach((m, i) => {
    if (m.role === 'tool') {
      for (const p of partsOf(m)) {
        if (p.type !== 'tool-result') continue
        if (!open.has(p.toolCallId as string))
          out.push(
            `message ${i}: result ${p.toolCallId} answers no call of the assistant before it`,
          )
        open.delete(p.toolCallId as string)
      }
      return
    }
    close(i)
    if (m.role !== 'assistant') return
    const executed = new Set<string>()
    const answered = new Set<string>()
    for (const p of partsOf(m)) {
      if (p.type === 'tool-call') {
        const id = p.toolCallId as string
        if (seen.has(id)) out.push(`message ${i}: call id ${id} used twice`)
        seen.add(id)
        if (p.providerExecuted === true) executed.add(id)
        else open.add(id)
      } else if (p.type === 'tool-result') {
        if (!executed.has(p.toolCallId as string))
          out.push(
            `message ${i}: result ${p.toolCallId} in an assistant message without its provider-executed call before it`,
          )
        answered.add(p.toolCallId as string)
      }
    }
    for (const id of executed)
      if (!answered.has(id)) out.push(`message ${i}: provider-executed call ${id} has no result`)
  })
  close(messages.length)
  return out
}

const tokens = (s: string) => (s ? encode(s, { allowedSpecial: 'all' }).length : 0)

/**
 * A floor for what a prompt costs: the o200k tokens of its texts, of each call's input and
 * each result's output as JSON. Any provider's count of the prompt is at least this.
 */
export function aiSdkTextTokens(messages: readonly unknown[]): number {
  let n = 0
  for (const m of messages as Msg[]) {
    if (typeof m.content === 'string') {
      n += tokens(m.content)
      continue
    }
    for (const p of partsOf(m)) {
      if (p.type === 'text' || p.type === 'reasoning') n += tokens(p.text ?? '')
      else if (p.type === 'tool-call') n += tokens(JSON.stringify(p.input ?? {}))
      else if (p.type === 'tool-result') {
        const o = p.output as { value?: unknown } | undefined
        n += tokens(typeof o?.value === 'string' ? o.value : JSON.stringify(o?.value ?? ''))
      }
    }
  }
  return n
}
