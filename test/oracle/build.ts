// Builds Responses and Gemini histories from OpenAI chat JSON, the way those APIs return
// them (reasoning items before the model's items, thought signatures on the parts that
// carry them). Written apart from the library's codecs: imports nothing from src/.

type Json = Record<string, unknown>

function blob(seed: string, length: number): string {
  let h = 2166136261
  for (const ch of seed) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
  let s = ''
  for (let i = 0; i < length; i++) {
    h = Math.imul(h ^ (h >>> 15), 2246822507) >>> 0
    s += abc[h % 64]
  }
  return `${s}==`
}

function text(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((p) => (p as Json).text ?? '').join('')
  return ''
}

export interface ResponsesBuild {
  /** Put a compaction item after this many items (and the items before it stay in the input). */
  compactAfter?: number
  /** Reasoning items without encrypted_content on every other model turn. */
  someUnencrypted?: boolean
}

/** An OpenAI chat history as a Responses request `{ instructions, input }`. */
export function chatToResponses(
  traj: readonly Json[],
  seed: string,
  opts: ResponsesBuild = {},
): Json {
  const input: Json[] = []
  let instructions: string | undefined
  traj.forEach((m, i) => {
    if (m.role === 'system' && i === 0) {
      instructions = text(m.content)
      return
    }
    if (m.role === 'system' || m.role === 'user') {
      input.push({ role: m.role === 'system' ? 'developer' : 'user', content: text(m.content) })
    } else if (m.role === 'assistant') {
      const reasoning: Json = {
        type: 'reasoning',
        id: `rs_${seed}_${i}`,
        summary:
          i % 3 === 0
            ? []
            : [{ type: 'summary_text', text: `**Step ${i}** thinking about the booking` }],
      }
      if (!(opts.someUnencrypted && i % 2 === 0))
        reasoning.encrypted_content = blob(`${seed}${i}`, 200 + (i % 7) * 50)
      input.push(reasoning)
      const calls = (m.tool_calls as Json[] | undefined) ?? []
      const said = text(m.content)
      if (said || calls.length === 0)
        input.push({
          type: 'message',
          id: `msg_${seed}_${i}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: said, annotations: [] }],
        })
      calls.forEach((c, k) => {
        const fn = c.function as Json
        input.push({
          type: 'function_call',
          id: `fc_${seed}_${i}_${k}`,
          call_id: c.id,
          name: fn.name,
          arguments: fn.arguments,
          status: 'completed',
        })
      })
    } else if (m.role === 'tool') {
      input.push({ type: 'function_call_output', call_id: m.tool_call_id, output: text(m.content) })
    }
    if (opts.compactAfter !== undefined && input.length === opts.compactAfter)
      input.push({
        type: 'compaction',
        id: `cmp_${seed}`,
        encrypted_content: blob(`cmp${seed}`, 400),
      })
  })
  return { ...(instructions !== undefined && { instructions }), input }
}

export interface GeminiBuild {
  /** Leave the ids out of calls and responses (the Gemini API's usual form), pairing by name. */
  noIds?: boolean
}

/** An OpenAI chat history as a Gemini request `{ systemInstruction, contents }`. */
export function chatToGemini(traj: readonly Json[], seed: string, opts: GeminiBuild = {}): Json {
  const contents: Json[] = []
  let systemInstruction: Json | undefined
  let responses: Json[] | undefined
  traj.forEach((m, i) => {
    if (m.role !== 'tool') responses = undefined
    if (m.role === 'system' && i === 0) {
      systemInstruction = { parts: [{ text: text(m.content) }] }
      return
    }
    if (m.role === 'system' || m.role === 'user') {
      contents.push({ role: 'user', parts: [{ text: text(m.content) || '…' }] })
      return
    }
    if (m.role === 'assistant') {
      const parts: Json[] = []
      if (i % 2 === 0) parts.push({ text: `Thinking about step ${i}.`, thought: true })
      const calls = (m.tool_calls as Json[] | undefined) ?? []
      const said = text(m.content)
      calls.forEach((c, k) => {
        const fn = c.function as Json
        let args: unknown
        try {
          args = JSON.parse(fn.arguments as string)
        } catch {
          args = { raw: fn.arguments }
        }
        const part: Json = {
          functionCall: { ...(!opts.noIds && { id: c.id }), name: fn.name, args },
        }
        // Parallel calls: only the first carries the step's signature.
        if (k === 0) part.thoughtSignature = blob(`${seed}sig${i}`, 120)
        parts.push(part)
      })
      if (calls.length === 0)
        parts.push({ text: said || '…', thoughtSignature: blob(`${seed}txt${i}`, 80) })
      contents.push({ role: 'model', parts })
      return
    }
    if (m.role === 'tool') {
      if (!responses) {
        responses = []
        contents.push({ role: 'user', parts: responses })
      }
      const call = findCall(traj, i, m.tool_call_id as string)
      responses.push({
        functionResponse: {
          ...(!opts.noIds && { id: m.tool_call_id }),
          name: call,
          response: { output: text(m.content) },
        },
      })
    }
  })
  return { ...(systemInstruction && { systemInstruction }), contents }
}

function findCall(traj: readonly Json[], at: number, id: string): string {
  for (let i = at - 1; i >= 0; i--) {
    for (const c of (traj[i]?.tool_calls as Json[] | undefined) ?? [])
      if (c.id === id) return (c.function as Json).name as string
  }
  return 'unknown'
}
