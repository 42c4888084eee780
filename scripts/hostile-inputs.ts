// npx tsx scripts/hostile-inputs.ts: the time each hostile input of the reliability tests
// takes on this machine, against the target of linear work (at most ~1 s per MB of text).

import '../src/tokens/node-encodings.js'
import { parseOverflowError } from '../src/context/limits/overflow-error.js'
import { decode, encode, FORMATS, providerOfFormat } from '../src/formats/detect.js'
import { fitModelInput } from '../src/integrations/openai-agents.js'
import { factsOfText } from '../src/messages/facts.js'
import type { Message } from '../src/messages/message.js'
import { repair } from '../src/providers/repair.js'
import { textCounter } from '../src/tokens/encodings.js'

const count = textCounter('o200k_base')
count('warm up')

let seed = 7
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
}
const letters = (n: number) =>
  Array.from({ length: n }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(random() * 26)]).join('')

function ms(fn: () => unknown): number {
  const start = performance.now()
  fn()
  return performance.now() - start
}

const rows: [string, number, number][] = []
const text = (name: string, t: string) =>
  rows.push([name, new TextEncoder().encode(t).length, ms(() => count(t))])

text('40,000 × U+3000', '\u3000'.repeat(40_000))
text('100,000 spaces', ' '.repeat(100_000))
text(
  '1 MB of 1,999-letter random words',
  Array.from({ length: 500 }, () => letters(1999)).join(' '),
)
text(
  '1 MB of 47-letter random words (no cut)',
  Array.from({ length: 20_800 }, () => letters(47)).join(' '),
)
text('1 MB of spaces', ' '.repeat(1_000_000))
text('1 MB of U+3000', '\u3000'.repeat(333_334))
text('1 MB of emoji', '😀'.repeat(250_000))
text('1 MB of CJK', '日本語の文章'.repeat(55_556))
text(
  '1 MB of English prose',
  'The quick brown fox jumps over the lazy dog, and then it rests. '.repeat(16_000),
)

const error = `${'x '.repeat(700_000)}maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.`
rows.push(['parseOverflowError, 1.4 MB message', error.length, ms(() => parseOverflowError(error))])

const n = 60_000
const calls: Message[] = [
  { role: 'user', content: 'go' },
  {
    role: 'assistant',
    toolCalls: Array.from({ length: n }, (_, k) => ({ id: `c${k}`, name: 'f', arguments: '{}' })),
  },
  ...Array.from(
    { length: n },
    (_, k): Message => ({ role: 'tool', toolCallId: `c${k}`, content: 'ok' }),
  ),
]
rows.push([
  'repair, 60,000 parallel tool calls',
  0,
  ms(() => repair(calls, { provider: 'anthropic' })),
])

const parallel = 20_000
const items: unknown[] = [{ type: 'message', role: 'user', content: 'go' }]
for (let k = 0; k < parallel; k++)
  items.push({ type: 'function_call', id: `fc_${k}`, callId: `c.${k}`, name: 'f', arguments: '{}' })
for (let k = 0; k < parallel; k++)
  items.push({
    type: 'function_call_result',
    callId: `c.${k}`,
    name: 'f',
    status: 'completed',
    output: { type: 'text', text: 'ok' },
  })
const filter = fitModelInput({ model: 'gpt-4o', budget: 10_000_000 })
rows.push([
  'fitModelInput, one model turn of 20,000 parallel calls',
  JSON.stringify(items).length,
  ms(() => filter({ modelData: { input: items } })),
])

const csv = '1,'.repeat(500_000)
rows.push([
  'facts of a 1 MB `1,2,3,…` run (a CSV tool result)',
  csv.length,
  ms(() => factsOfText(csv)),
])

// Every codec, one turn of 20,000 parallel calls against the same calls spread over 20,000
// turns, and against one turn of 10,000: decode, encode and repair should cost about the same
// for both layouts, and twice as much for twice the calls (linear work). Best of two runs.
const oneTurn = (n: number): Message[] => [
  { role: 'user', content: 'go' },
  {
    role: 'assistant',
    toolCalls: Array.from({ length: n }, (_, k) => ({
      id: `c${k}`,
      name: `f${k % 7}`,
      arguments: '{"q":1}',
    })),
  },
  ...Array.from(
    { length: n },
    (_, k): Message => ({
      role: 'tool',
      toolCallId: `c${k}`,
      toolName: `f${k % 7}`,
      content: 'ok',
    }),
  ),
]
const spread = (n: number): Message[] => [
  { role: 'user', content: 'go' },
  ...Array.from({ length: n }, (_, k): Message[] => [
    {
      role: 'assistant',
      toolCalls: [{ id: `c${k}`, name: `f${k % 7}`, arguments: '{"q":1}' }],
    },
    { role: 'tool', toolCallId: `c${k}`, toolName: `f${k % 7}`, content: 'ok' },
  ]).flat(),
]
const best = (fn: () => unknown) => Math.min(ms(fn), ms(fn))
const ratios: [string, number, number][] = []
for (const format of FORMATS) {
  const provider = providerOfFormat(format) ?? 'openai'
  const times = (h: Message[]) => {
    const wire = encode(h, format).output
    return {
      decode: best(() => decode(wire, format)),
      encode: best(() => encode(h, format)),
      repair: best(() => repair(h, { provider })),
    }
  }
  const half = times(oneTurn(10_000))
  const one = times(oneTurn(20_000))
  const many = times(spread(20_000))
  for (const step of ['decode', 'encode', 'repair'] as const) {
    rows.push([`${format} ${step}, one turn of 20,000 parallel calls`, 0, one[step]])
    rows.push([`${format} ${step}, the same calls over 20,000 turns`, 0, many[step]])
    ratios.push([`${format} ${step}`, one[step] / many[step], one[step] / half[step]])
  }
}

console.log('| input | size | time | per MB |')
console.log('| --- | --- | --- | --- |')
for (const [name, bytes, t] of rows) {
  const perMb = bytes ? `${((t * 1_000_000) / bytes).toFixed(0)} ms` : ''
  console.log(
    `| ${name} | ${bytes ? `${(bytes / 1e6).toFixed(2)} MB` : ''} | ${t.toFixed(0)} ms | ${perMb} |`,
  )
}
console.log('\n| codec step | one turn ÷ spread over turns | 20,000 ÷ 10,000 in one turn |')
console.log('| --- | --- | --- |')
for (const [name, r, d] of ratios) console.log(`| ${name} | ${r.toFixed(2)} | ${d.toFixed(2)} |`)
