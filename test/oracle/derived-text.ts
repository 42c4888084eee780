// What a line of text the library writes from messages may say, read from the outside.
// Imports nothing from src/: the grammar and the checks are written here, apart from the
// renderer, so a blind spot the renderer has is not shared.

/** A message as the oracle needs it: its role, text, and tool names. */
export interface Source {
  role: string
  /** Content text, and a call's arguments for an assistant message. */
  texts: string[]
  /** Tool names: a result's tool, or the tools an assistant message calls. */
  tools: string[]
}

export interface ParsedLine {
  index: number
  role: string
  tools: string[]
  items: { key?: string; value: string }[]
}

/** A JSON string literal at `at`, read by hand: its value and where it ends, or undefined. */
function jsonString(text: string, at: number): { value: string; end: number } | undefined {
  if (text[at] !== '"') return undefined
  let k = at + 1
  while (k < text.length) {
    const c = text[k] as string
    if (c === '"') break
    // A raw control character, line or paragraph separator is not allowed in a quoted value.
    const code = c.charCodeAt(0)
    if (code < 0x20 || code === 0x85 || code === 0x2028 || code === 0x2029) return undefined
    k += c === '\\' ? 2 : 1
  }
  if (k >= text.length) return undefined
  try {
    return { value: JSON.parse(text.slice(at, k + 1)) as string, end: k + 1 }
  } catch {
    return undefined
  }
}

const BARE = /^[A-Za-z_][A-Za-z0-9_.-]*/

/** A key or tool name at `at`: a bare word or a JSON string. */
function nameAt(text: string, at: number): { value: string; end: number } | undefined {
  const quoted = jsonString(text, at)
  if (quoted) return quoted
  const m = BARE.exec(text.slice(at))
  return m ? { value: m[0], end: at + m[0].length } : undefined
}

/**
 * One record line: `message N by WHO: item, item`, WHO being `user`, `assistant`, `system`,
 * `tool`, `tool NAME` or `assistant calling NAME and NAME`, an item `"v"`, `key="v"` or
 * `key=["v","w"]`. Anything else is `undefined`: a line the renderer did not write.
 */
export function parseLine(line: string): ParsedLine | undefined {
  const head = /^message (\d+) by (user|assistant|system|tool)/.exec(line)
  if (!head) return undefined
  const out: ParsedLine = {
    index: Number(head[1]),
    role: head[2] as string,
    tools: [],
    items: [],
  }
  let at = head[0].length
  const word = (w: string) => {
    if (line.startsWith(w, at)) {
      at += w.length
      return true
    }
    return false
  }
  if (out.role === 'tool' && word(' ')) {
    const n = nameAt(line, at)
    if (!n) return undefined
    out.tools.push(n.value)
    at = n.end
  } else if (out.role === 'assistant' && word(' calling ')) {
    for (;;) {
      const n = nameAt(line, at)
      if (!n) return undefined
      out.tools.push(n.value)
      at = n.end
      if (!word(' and ')) break
    }
  }
  if (!word(': ')) return undefined
  for (;;) {
    let key: string | undefined
    if (line[at] !== '"') {
      const n = nameAt(line, at)
      if (!n || line[n.end] !== '=') return undefined
      key = n.value
      at = n.end + 1
    } else {
      // A quoted key is followed by `=`; a quoted value is not.
      const q = jsonString(line, at)
      if (!q) return undefined
      if (line[q.end] === '=') {
        key = q.value
        at = q.end + 1
      }
    }
    if (line[at] === '[') {
      at++
      for (;;) {
        const v = jsonString(line, at)
        if (!v) return undefined
        out.items.push({ ...(key !== undefined && { key }), value: v.value })
        at = v.end
        if (line[at] === ',') at++
        else break
      }
      if (line[at] !== ']') return undefined
      at++
    } else {
      const v = jsonString(line, at)
      if (!v) return undefined
      out.items.push({ ...(key !== undefined && { key }), value: v.value })
      at = v.end
    }
    if (at === line.length) return out
    if (!word(', ')) return undefined
  }
}

/** Every string a JSON text holds (keys and values), or none when it is not JSON. */
function jsonStrings(text: string): string[] {
  const out: string[] = []
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return out
  }
  const stack = [parsed]
  while (stack.length) {
    const v = stack.pop()
    if (typeof v === 'string') out.push(v)
    else if (Array.isArray(v)) stack.push(...v)
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        out.push(k)
        stack.push(x)
      }
  }
  return out
}

/** Whether `value` occurs whole in one of the message's texts (or a string its JSON holds). */
export function occursIn(value: string, source: Source): boolean {
  for (const t of source.texts) {
    if (t.includes(value)) return true
    for (const s of jsonStrings(t)) if (s.includes(value)) return true
  }
  return false
}

/**
 * What is wrong with a ledger's text against the history it was made from (by caller index):
 * a line that does not parse, a line naming a message that is not there, another role or
 * another tool, or a value that message does not hold.
 */
export function ledgerProblems(
  text: string,
  heading: string,
  history: readonly Source[],
): string[] {
  const problems: string[] = []
  const lines = text.split(/\r\n|\r|\n|\u2028|\u2029|\u0085/)
  if (lines[0] !== heading) problems.push(`first line is not the heading: ${lines[0]}`)
  const seen = new Set<number>()
  for (const line of lines.slice(1)) {
    const p = parseLine(line)
    if (!p) {
      problems.push(`line not in the record grammar: ${JSON.stringify(line.slice(0, 200))}`)
      continue
    }
    if (seen.has(p.index)) problems.push(`message ${p.index} has two lines`)
    seen.add(p.index)
    const source = history[p.index]
    if (!source) {
      problems.push(`names message ${p.index}, which the history does not have`)
      continue
    }
    if (source.role !== p.role)
      problems.push(`message ${p.index} is by ${source.role}, the line says ${p.role}`)
    for (const tool of p.tools)
      if (!source.tools.includes(tool))
        problems.push(`message ${p.index} has no tool ${JSON.stringify(tool)}`)
    for (const item of p.items)
      if (!occursIn(item.value, source))
        problems.push(`message ${p.index} does not hold ${JSON.stringify(item.value)}`)
  }
  return problems
}

/** A message in the library's own shape, as far as the oracle reads it. */
interface LibraryMessage {
  role: string
  content?: unknown
  toolCalls?: { id: string; name: string; arguments: string }[]
  toolCallId?: string
  toolName?: string
}

/** The oracle's view of a history in the library's shape: role, texts and tools by index. */
export function sourcesOf(history: readonly LibraryMessage[]): Source[] {
  const names = new Map<string, string>()
  const text = (content: unknown) =>
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content
            .filter((p) => p?.type === 'text')
            .map((p) => p.text as string)
            .join('\n')
        : ''
  return history.map((m) => {
    const content = text(m.content)
    if (m.role === 'assistant') {
      const calls = m.toolCalls ?? []
      for (const c of calls) names.set(c.id, c.name)
      return {
        role: 'assistant',
        texts: [content, ...calls.map((c) => c.arguments)],
        tools: calls.map((c) => c.name),
      }
    }
    if (m.role === 'tool') {
      const name = m.toolName ?? names.get(m.toolCallId ?? '')
      return { role: 'tool', texts: [content], tools: name ? [name] : [] }
    }
    return { role: m.role, texts: [content], tools: [] }
  })
}

/** The message indices a ledger's lines name, in order. */
export function ledgerIndices(text: string): number[] {
  return text
    .split('\n')
    .slice(1)
    .map((line) => parseLine(line)?.index ?? -1)
}
