// How many identifiers of the summarized messages are still sent after compaction.
// The 40 longest τ-bench trajectories, `summarizing` at --budget 2500 (as the CLI runs it).
// Identifiers are found by this script's own patterns (reservation codes, flight numbers,
// user and payment ids, emails, dates, amounts), written apart from the library's fact
// extractor so the library is not graded by its own reading.
// npm run eval:facts [-- --budget 2500 --count 40 --no-ledger --verbose]
import '../src/tokens/node-encodings.js'
import { parseArgs } from 'node:util'
import { extractiveSummarizer } from '../src/compress/extractive.js'
import { summarizing } from '../src/compress/summarizing.js'
import { fitAsync } from '../src/context/fit.js'
import { contentText, type Message } from '../src/messages/message.js'
import { fromOpenAIChat } from '../src/providers/openai-chat/codec.js'
import { exactCounter } from '../src/tokens/counters.js'
import { tauBench } from '../test/tau-bench.js'

const { values } = parseArgs({
  options: {
    budget: { type: 'string', default: '2500' },
    count: { type: 'string', default: '40' },
    'no-ledger': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
})
const budget = Number(values.budget)
const count = Number(values.count)
const counter = exactCounter()

/** Everything a model reads from a message: text, tool names, call arguments. */
function readable(m: Message): string {
  const parts = [contentText(m.content)]
  if (m.role === 'assistant') {
    for (const c of m.toolCalls ?? []) parts.push(c.name, c.arguments)
    if (m.thought) parts.push(m.thought)
    if (m.refusal) parts.push(m.refusal)
  }
  if (m.role === 'tool' && m.toolName) parts.push(m.toolName)
  return parts.join('\n')
}

const AMOUNT_KEY = /price|amount|balance|cost|fee|total|refund/i

/** Identifiers as this evaluation defines them; amounts and numbers as their digits. */
function identifiers(text: string): Set<string> {
  const out = new Set<string>()
  const add = (re: RegExp, group = 0) => {
    for (const m of text.matchAll(re)) out.add(m[group] as string)
  }
  // Reservation codes and flight numbers: 5-8 capitals and digits, at least one of each.
  add(/\b(?=[A-Z0-9]{5,8}\b)(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]+\b/g)
  // User and payment ids: words joined by underscores, ending in digits.
  add(/\b[a-z]+(?:_[a-z]+)*_\d+\b/g)
  add(/\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g)
  add(/\b\d{4}-\d{2}-\d{2}\b/g)
  for (const m of text.matchAll(/\$\s?(\d[\d,]*(?:\.\d+)?)/g))
    out.add(`#${(m[1] as string).replace(/,/g, '')}`)
  for (const m of text.matchAll(/"([A-Za-z_]+)":\s*(\d+(?:\.\d+)?)/g))
    if (AMOUNT_KEY.test(m[1] as string)) out.add(`#${m[2]}`)
  return out
}

/** An identifier is sent when its text is there; an amount when its digits stand alone. */
function sent(id: string, text: string): boolean {
  if (!id.startsWith('#')) return text.includes(id)
  const digits = id.slice(1)
  const re = new RegExp(`(?<![\\d.])${digits.replace('.', '\\.')}(?:\\.0+)?(?![\\d]|\\.\\d)`)
  if (re.test(text.replace(/(\d),(\d{3})/g, '$1$2'))) return true
  // 150 and 150.0 are the same amount.
  return digits.endsWith('.0') && text.includes(digits.slice(0, -2))
}

const trajectories = tauBench()
  .map((r) => fromOpenAIChat(r.traj))
  .map((messages) => ({ messages, tokens: counter.countMessages(messages) }))
  .sort((a, b) => b.tokens - a.tokens)
  .slice(0, count)

let total = 0
let kept = 0
let compressed = 0
let fellBack = 0
let summarizedMessages = 0
let ledgerReinserted = 0
const lost = new Map<string, number>()
for (const [k, { messages }] of trajectories.entries()) {
  const events: string[] = []
  const strategy = summarizing({
    summarizer: extractiveSummarizer({ counter }),
    ...(values['no-ledger'] && { facts: false }),
    onEvent: (e) => events.push(e.type === 'fallback' ? `fallback: ${e.reason}` : e.type),
  })
  const result = await fitAsync(messages, { strategy, budget, counter })
  const summarized = result.fates.flatMap((f, i) => (f.fate === 'summarized' ? [i] : []))
  if (summarized.length) compressed++
  if (events.some((e) => e.startsWith('fallback'))) fellBack++
  summarizedMessages += summarized.length
  const ids = new Set<string>()
  for (const i of summarized)
    for (const id of identifiers(readable(messages[i] as Message))) ids.add(id)
  const text = result.messages.map(readable).join('\n')
  let here = 0
  for (const id of ids) {
    if (sent(id, text)) here++
    else lost.set(id.replace(/\d/g, '9'), (lost.get(id.replace(/\d/g, '9')) ?? 0) + 1)
  }
  for (const ins of result.inserted) ledgerReinserted += ins.facts?.reinserted.length ?? 0
  total += ids.size
  kept += here
  if (values.verbose)
    console.log(
      `#${k}: ${summarized.length} messages summarized, ${here}/${ids.size} identifiers sent, ${result.tokens.total} tokens${events.length ? `; ${events.join('; ')}` : ''}`,
    )
}
console.log(
  `${trajectories.length} longest τ-bench trajectories at --budget ${budget}, summarizing (extractive)${values['no-ledger'] ? ' without the fact ledger' : ''}:`,
)
console.log(
  `  ${compressed} compressed (${summarizedMessages} messages summarized), ${fellBack} fell back to trimming`,
)
console.log(
  `  identifiers of summarized messages still sent: ${kept} of ${total} (${((100 * kept) / Math.max(1, total)).toFixed(1)}%)`,
)
if (!values['no-ledger']) console.log(`  facts re-inserted by the ledger: ${ledgerReinserted}`)
if (values.verbose && lost.size) console.log('  lost (shape: count):', Object.fromEntries(lost))
