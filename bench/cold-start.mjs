// One cold start, run by bench/run.ts in a fresh Node process per sample: import a library
// and fit the bundled example (examples/airline-booking.json) to 3,000 tokens once. Plain
// JavaScript, so no TypeScript loader is timed. Prints one JSON line: milliseconds since the
// process started (Node's own start included, the same for every system), when the import
// was done and when the fit was.
//   node bench/cold-start.mjs estimate|exact|ai-sdk|langchain
import { readFileSync } from 'node:fs'

const which = process.argv[2]
const example = JSON.parse(
  readFileSync(new URL('../examples/airline-booking.json', import.meta.url), 'utf8'),
).messages
const BUDGET = 3000
let imported = 0
let kept = 0

if (which === 'estimate' || which === 'exact') {
  // The package by its own name: Node picks the entry a user's program gets.
  const { fit, fromOpenAIChat } = await import('context-window')
  imported = performance.now()
  const model = which === 'exact' ? 'gpt-4o' : 'claude-sonnet-4-5'
  kept = fit(fromOpenAIChat(example), { model, budget: BUDGET }).messages.length
} else if (which === 'ai-sdk') {
  const { pruneMessages } = await import('ai')
  imported = performance.now()
  kept = pruneMessages({
    messages: toModelMessages(example),
    reasoning: 'all',
    toolCalls: 'before-last-2-messages',
    emptyMessages: 'remove',
  }).length
} else if (which === 'langchain') {
  const lc = await import('@langchain/core/messages')
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base')
  imported = performance.now()
  const text = (m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))
  const out = await lc.trimMessages(toLangChain(lc, example), {
    maxTokens: BUDGET,
    strategy: 'last',
    includeSystem: true,
    startOn: 'human',
    tokenCounter: (msgs) =>
      msgs.reduce(
        (n, m) => n + 3 + countTokens(text(m)) + countTokens(JSON.stringify(m.tool_calls ?? [])),
        3,
      ),
  })
  kept = out.length
} else throw new Error(`unknown system ${which}`)

console.log(JSON.stringify({ which, importMs: imported, totalMs: performance.now(), kept }))

function toModelMessages(messages) {
  const names = new Map()
  return messages.map((m) => {
    if (m.role === 'system') return { role: 'system', content: m.content }
    if (m.role === 'user') return { role: 'user', content: m.content }
    if (m.role === 'tool')
      return {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: m.tool_call_id,
            toolName: names.get(m.tool_call_id) ?? 'tool',
            output: { type: 'text', value: m.content },
          },
        ],
      }
    const calls = (m.tool_calls ?? []).map((c) => {
      names.set(c.id, c.function.name)
      return {
        type: 'tool-call',
        toolCallId: c.id,
        toolName: c.function.name,
        input: JSON.parse(c.function.arguments),
      }
    })
    return {
      role: 'assistant',
      content: [...(m.content ? [{ type: 'text', text: m.content }] : []), ...calls],
    }
  })
}

function toLangChain(lc, messages) {
  return messages.map((m) => {
    if (m.role === 'system') return new lc.SystemMessage(m.content)
    if (m.role === 'user') return new lc.HumanMessage(m.content)
    if (m.role === 'tool')
      return new lc.ToolMessage({ content: m.content, tool_call_id: m.tool_call_id })
    return new lc.AIMessage({
      content: m.content ?? '',
      tool_calls: (m.tool_calls ?? []).map((c) => ({
        id: c.id,
        name: c.function.name,
        args: JSON.parse(c.function.arguments),
        type: 'tool_call',
      })),
    })
  })
}
