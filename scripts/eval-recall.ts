// What one recall gets back of what the fit cut, on τ-bench and τ²-bench airline agent traces
// and on LoCoMo.
//
// Agents: a case is a tool call whose identifiers only older turns hold (as `eval:agent`
// defines it). The history before the call is fitted at 10% (system prompt plus 10% of the
// rest plus 400 tokens); the case counts when every such identifier is in what is sent, or
// in what one recall returns when asked as a model would ask: the name of the tool it is
// about to call and that call's argument names (never the identifiers it lacks).
// LoCoMo: a question counts when all its evidence turns are sent at 10% or returned by one
// recall of the question's text.
//
// The recall's settings and ranking were chosen on τ-bench; τ²-bench (Claude) and LoCoMo were
// not looked at to choose them.
//
// npm run eval:recall [-- --data tau-bench,tau2-claude,locomo] [--budget 0.1] [--max-tokens 3000] [--max-messages 16] [--json]
import '../src/tokens/node-encodings.js'
import { parseArgs } from 'node:util'
import { fit } from '../src/context/fit.js'
import { recallFrom } from '../src/context/recall.js'
import { ContextOverflowError } from '../src/errors.js'
import { type Message, messageText } from '../src/messages/message.js'
import { fromOpenAIChat } from '../src/providers/openai-chat/codec.js'
import { checkRecallOptions, RECALL_DEFAULTS, recallToolTokens } from '../src/recall/definition.js'
import { exactCounter } from '../src/tokens/counters.js'
import { LOCOMO_DEV_PATH, readLocomo } from '../test/locomo-data.js'
import { agentBudget, agentCases, DATA_SETS } from './eval-agent.js'
import { type LocomoSample, locomoChat, normaliseEvidence } from './locomo.js'

const counter = exactCounter()
/**
 * What the recall tool's definition costs: added to each budget, as the data sets' own tools
 * are not counted either (`eval:agent` fits the history alone), so the history gets the same room.
 */
const TOOL = recallToolTokens(counter)

interface Row {
  data: string
  setting: string
  cases: number
  sent: number
  sentOrRecalled: number
  recallTokens: number
  ledgerTokens: number
}

/** The query a model about to make `call` would write: the tool's name and its argument names. */
export function askedAs(call: { name: string; arguments: string }): string {
  let names: string[] = []
  try {
    const args: unknown = JSON.parse(call.arguments)
    if (args && typeof args === 'object' && !Array.isArray(args)) names = Object.keys(args)
  } catch {
    // Arguments that are not JSON name no argument.
  }
  return [call.name, ...names].join(' ')
}

/** The ledger settings compared, with recall on: how small can the ledger be? */
const LEDGERS: Record<string, { ledger?: false | { maxTokens: number } }> = {
  'ledger (default) + recall': {},
  'ledger { maxTokens: 200 } + recall': { ledger: { maxTokens: 200 } },
  'ledger: false + recall': { ledger: false },
}

export function agents(
  data: string,
  budget: number,
  maxTokens: number,
  maxMessages: number,
  setting: string,
): Row {
  const records = (DATA_SETS[data] as () => ReturnType<(typeof DATA_SETS)[string]>)()
  const settings = checkRecallOptions({ maxTokens, maxMessages })
  const traces = records.map((r) => fromOpenAIChat(r.traj))
  let sent = 0
  let either = 0
  let recallTokens = 0
  let ledgerTokens = 0
  const cases = agentCases(records)
  for (const c of cases) {
    const call = traces[c.trajectory]?.[c.history.length]
    if (call?.role !== 'assistant' || !call.toolCalls?.length) throw new Error('case without call')
    const options = {
      budget: agentBudget(c.history, budget, counter) + TOOL,
      counter,
      recall: settings,
      ...LEDGERS[setting],
    }
    let text = ''
    let r: ReturnType<typeof fit> | undefined
    try {
      r = fit(c.history, options)
      text = r.messages.map(messageText).join('\n')
    } catch (e) {
      if (!(e instanceof ContextOverflowError)) throw e
    }
    const ledgerMessage = r?.inserted.find((i) => i.reason === 'ledger')
    if (ledgerMessage) ledgerTokens += counter.countMessage(ledgerMessage.message)
    if (c.ids.every((id) => text.includes(id))) sent++
    if (!r) continue
    // One recall, for the first call of the message (the one a model writes first).
    const first = call.toolCalls[0] as { name: string; arguments: string }
    const got = recallFrom(c.history, r, { query: askedAs(first) }, counter, settings)
    recallTokens += got.tokens
    if (c.ids.every((id) => text.includes(id) || got.text.includes(id))) either++
  }
  return {
    data,
    setting,
    cases: cases.length,
    sent: sent / cases.length,
    sentOrRecalled: either / cases.length,
    recallTokens: recallTokens / cases.length,
    ledgerTokens: ledgerTokens / cases.length,
  }
}

export function locomo(budget: number, maxTokens: number, maxMessages: number): Row {
  const samples = readLocomo(LOCOMO_DEV_PATH) as LocomoSample[]
  const settings = checkRecallOptions({ maxTokens, maxMessages })
  let n = 0
  let sent = 0
  let either = 0
  let recallTokens = 0
  for (const sample of samples) {
    const { messages, diaIds } = locomoChat(sample)
    const where = new Map<string, number>()
    diaIds.forEach((d, i) => {
      if (d) where.set(normaliseEvidence([d])[0] ?? d, i)
    })
    const total = counter.countMessages(messages)
    for (const qa of sample.qa) {
      const evidence = normaliseEvidence(qa.evidence)
        .map((e) => where.get(e))
        .filter((i): i is number => i !== undefined)
      if (evidence.length === 0) continue
      n++
      const history: Message[] = [...messages, { role: 'user', content: qa.question }]
      const r = fit(history, {
        budget: Math.max(1, Math.round(total * budget)) + TOOL,
        counter,
        recall: settings,
      })
      const kept = new Set(r.kept)
      if (evidence.every((i) => kept.has(i))) sent++
      const got = recallFrom(history, r, { query: qa.question }, counter, settings)
      recallTokens += got.tokens
      const back = new Set(got.messages)
      if (evidence.every((i) => kept.has(i) || back.has(i))) either++
    }
  }
  return {
    data: 'locomo (dev)',
    setting: 'default fit + recall',
    cases: n,
    sent: sent / n,
    sentOrRecalled: either / n,
    recallTokens: recallTokens / n,
    ledgerTokens: 0,
  }
}

function main(): void {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      budget: { type: 'string' },
      'max-tokens': { type: 'string' },
      'max-messages': { type: 'string' },
      json: { type: 'boolean' },
    },
  })
  const sets = (values.data ?? 'tau-bench,tau2-claude,locomo').split(',')
  const budget = Number(values.budget ?? 0.1)
  const maxTokens = Number(values['max-tokens'] ?? RECALL_DEFAULTS.maxTokens)
  const maxMessages = Number(values['max-messages'] ?? RECALL_DEFAULTS.maxMessages)
  const known = [...Object.keys(DATA_SETS), 'locomo']
  if (
    !(budget > 0 && budget <= 1) ||
    !(Number.isInteger(maxTokens) && maxTokens >= 128) ||
    !(Number.isInteger(maxMessages) && maxMessages > 0) ||
    sets.some((s) => !known.includes(s))
  ) {
    process.stderr.write(
      `eval-recall: --data takes ${known.join(',')}; --budget a fraction in (0, 1]; --max-tokens a whole number >= 128; --max-messages a whole number > 0\n`,
    )
    process.exit(2)
  }
  const rows: Row[] = []
  for (const s of sets) {
    if (s === 'locomo') rows.push(locomo(budget, maxTokens, maxMessages))
    else
      for (const l of Object.keys(LEDGERS)) rows.push(agents(s, budget, maxTokens, maxMessages, l))
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ budget, maxTokens, maxMessages, rows }, null, 2)}\n`)
    return
  }
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`
  process.stdout.write(
    `budget ${pct(budget)} (+ ${TOOL} tokens for the recall tool's definition), recall.maxTokens ${maxTokens}, recall.maxMessages ${maxMessages}\n\n| data | setting | cases | sent | sent or recalled | recall tokens (mean) | ledger tokens (mean) |\n| --- | --- | --- | --- | --- | --- | --- |\n`,
  )
  for (const r of rows)
    process.stdout.write(
      `| ${r.data} | ${r.setting} | ${r.cases} | ${pct(r.sent)} | ${pct(r.sentOrRecalled)} | ${Math.round(r.recallTokens)} | ${Math.round(r.ledgerTokens)} |\n`,
    )
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) main()
