// The OpenAI Responses API's input rules, written from its documentation and the errors
// users report, apart from the library: this file imports nothing from src/.

type Item = Record<string, unknown>

export interface ResponsesOracleOptions {
  /** The request is sent with store: false. */
  store?: boolean
}

/** The client-side built-in tools: each output item and the call item it answers. */
const BUILT_IN_OUTPUT: Record<string, string> = {
  computer_call_output: 'computer_call',
  local_shell_call_output: 'local_shell_call',
  shell_call_output: 'shell_call',
  apply_patch_call_output: 'apply_patch_call',
}

const MODEL_ITEM = (x: Item) =>
  (x.type === 'message' || x.type === undefined) && x.role === 'assistant'
    ? true
    : typeof x.type === 'string' &&
      x.type !== 'message' &&
      x.type !== 'reasoning' &&
      x.type !== 'compaction' &&
      !x.type.endsWith('_output')

/**
 * Every rule the request breaks, as sentences; none means the API accepts it. With the
 * `source` request the output was cut from, also: ids still need the reasoning they came
 * with, signatures of reasoning are kept, the latest compaction item is kept.
 */
export function responsesViolations(
  items: readonly unknown[],
  options: ResponsesOracleOptions = {},
  source?: readonly unknown[],
): string[] {
  const out: string[] = []
  const list = items as Item[]
  const ids = new Set<string>()
  const open: string[] = []
  list.forEach((x, i) => {
    if (!x || typeof x !== 'object') {
      out.push(`item ${i} is not an object`)
      return
    }
    if (typeof x.id === 'string') {
      if (ids.has(x.id)) out.push(`item ${i}: duplicate item id ${x.id}`)
      ids.add(x.id)
    }
    if (x.type === undefined || x.type === 'message') {
      if (!['user', 'assistant', 'system', 'developer'].includes(x.role as string))
        out.push(`item ${i}: message role ${String(x.role)}`)
      if (typeof x.content !== 'string' && !Array.isArray(x.content))
        out.push(`item ${i}: message content must be a string or a list`)
      if (x.role === 'assistant' && x.id !== undefined && x.type !== 'message')
        out.push(`item ${i}: an assistant message with an id must be an output message`)
      // "Invalid value: 'input_text'. Supported values are: 'output_text' and 'refusal'."
      if (x.role === 'assistant' && Array.isArray(x.content))
        (x.content as Item[]).forEach((p, k) => {
          if (p?.type !== 'output_text' && p?.type !== 'refusal')
            out.push(`item ${i}: assistant content part ${k} must be output_text or refusal`)
          else if (p.type === 'refusal' && typeof p.refusal !== 'string')
            out.push(`item ${i}: refusal part ${k} without its refusal text`)
        })
    }
    if (x.type === 'reasoning') {
      if (typeof x.id !== 'string') out.push(`item ${i}: reasoning without an id`)
      if (!Array.isArray(x.summary)) out.push(`item ${i}: reasoning without a summary list`)
      const next = list[i + 1]
      if (!next || next.type === 'reasoning' || !MODEL_ITEM(next))
        out.push(
          `item ${i}: reasoning ${String(x.id)} was provided without its required following item`,
        )
      if (
        options.store === false &&
        !(typeof x.encrypted_content === 'string' && x.encrypted_content)
      )
        out.push(
          `item ${i}: reasoning ${String(x.id)} without encrypted_content under store: false`,
        )
    }
    if (x.type === 'function_call' || x.type === 'custom_tool_call') {
      if (typeof x.call_id !== 'string' || !x.call_id) out.push(`item ${i}: call without call_id`)
      if (typeof x.name !== 'string') out.push(`item ${i}: call without a name`)
      if (x.type === 'function_call' && typeof x.arguments !== 'string')
        out.push(`item ${i}: function_call arguments must be a string`)
      open.push(`${x.type}:${String(x.call_id)}`)
    }
    // Built-in tool outputs the client sends back answer a call of their tool before them.
    if (typeof x.type === 'string' && BUILT_IN_OUTPUT[x.type]) {
      const call = BUILT_IN_OUTPUT[x.type] as string
      if (!list.slice(0, i).some((y) => y?.type === call && y.call_id === x.call_id))
        out.push(`item ${i}: No ${call} found for ${x.type} with call_id ${String(x.call_id)}`)
    }
    if (x.type === 'function_call_output' || x.type === 'custom_tool_call_output') {
      const kind = x.type === 'function_call_output' ? 'function_call' : 'custom_tool_call'
      const at = open.indexOf(`${kind}:${String(x.call_id)}`)
      if (at < 0)
        out.push(`item ${i}: No tool call found for ${x.type} with call_id ${String(x.call_id)}`)
      else open.splice(at, 1)
      if (typeof x.output !== 'string' && !Array.isArray(x.output))
        out.push(`item ${i}: output must be a string or a list`)
    }
  })
  for (const c of open) out.push(`No tool output found for ${c}`)
  if (source) out.push(...sourceRules(list, source as Item[]))
  return out
}

function sourceRules(list: Item[], source: Item[]): string[] {
  const out: string[] = []
  // In the source, the reasoning item each model item came right after (within its run).
  const needs = new Map<string, string>()
  let reasoning: string | undefined
  for (const x of source) {
    if (x.type === 'reasoning') {
      reasoning = x.id as string
      continue
    }
    if (!MODEL_ITEM(x)) {
      reasoning = undefined
      continue
    }
    if (typeof x.id === 'string' && reasoning) needs.set(x.id, reasoning)
  }
  const sent = new Set(list.filter((x) => x.type === 'reasoning').map((x) => x.id))
  for (const x of list) {
    const need = typeof x.id === 'string' ? needs.get(x.id) : undefined
    if (need && !sent.has(need))
      out.push(
        `Item ${String(x.id)} of type ${String(x.type)} was provided without its required reasoning item: ${need}`,
      )
  }
  // Reasoning sent back is the source's, byte for byte.
  const byId = new Map(source.filter((x) => x.type === 'reasoning').map((x) => [x.id, x]))
  for (const x of list) {
    if (x.type !== 'reasoning') continue
    if (JSON.stringify(byId.get(x.id)) !== JSON.stringify(x))
      out.push(`reasoning ${String(x.id)} changed`)
  }
  const compactions = source.filter((x) => x.type === 'compaction')
  const latest = compactions[compactions.length - 1]
  if (
    latest &&
    !list.some((x) => x.type === 'compaction' && x.encrypted_content === latest.encrypted_content)
  )
    out.push('the latest compaction item was dropped')
  return out
}
