// The OpenAI Agents SDK's recall tool over the SDK's own items: the history a run produces
// (`result.history`: message items, `function_call` with `callId`, `function_call_result`),
// not chat messages. The items come from a real run of the SDK's runner with a scripted
// model, and the checks read the caller's item array, apart from `src/`.
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  protocol,
  type RunContext,
  run,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents'
import { describe, expect, it } from 'vitest'
import { fitModelInput } from '../../src/integrations/openai-agents.js'
import { recallToolForOpenAIAgents } from '../../src/recall/frameworks.js'
import { exactCounter } from '../../src/tokens/counters.js'

setTracingDisabled(true)

const counter = exactCounter()
const INSTRUCTIONS = 'You are a travel desk agent.'
const options = { budget: 900, counter, recall: true } as const
const BOOKINGS: Record<string, { booking_id: string; note: string }> = {
  first: { booking_id: 'BKG-40417', note: 'aisle seat, vegetarian meal, approved by Dana' },
  second: { booking_id: 'BKG-50518', note: 'window seat' },
}

type Out = protocol.OutputModelItem

/** A model that plays back one list of output items per call, keeping what it was sent. */
function scripted(turns: ((request: ModelRequest) => Out[])[]): Model & { seen: ModelRequest[] } {
  const seen: ModelRequest[] = []
  return {
    seen,
    async getResponse(request): Promise<ModelResponse> {
      seen.push(request)
      const next = turns[seen.length - 1]
      if (!next) throw new Error('no scripted turn left')
      return { usage: new Usage(), output: next(request), responseId: `r${seen.length}` }
    },
    // biome-ignore lint/correctness/useYield: a scripted model has no stream
    async *getStreamedResponse() {
      throw new Error('not streamed')
    },
  }
}

const said = (text: string, id: string): Out => ({
  type: 'message',
  role: 'assistant',
  id,
  status: 'completed',
  content: [{ type: 'output_text', text }],
})
const call = (callId: string, name: string, args: unknown): Out => ({
  type: 'function_call',
  id: `fc_${callId}`,
  callId,
  name,
  status: 'completed',
  arguments: JSON.stringify(args),
})

const getBooking = tool({
  name: 'get_booking',
  description: 'Look a booking up',
  parameters: {
    type: 'object',
    properties: { slot: { type: 'string' } },
    required: ['slot'],
    additionalProperties: false,
  },
  strict: true,
  execute: async (input) => JSON.stringify(BOOKINGS[(input as { slot: string }).slot]),
})

/** A history made by the SDK itself: a turn with two calls and their results, then chatter. */
async function sdkHistory(): Promise<AgentInputItem[]> {
  const model = scripted([
    () => [
      said('Looking them up.', 'm1'),
      call('c1', 'get_booking', { slot: 'first' }),
      call('c2', 'get_booking', { slot: 'second' }),
    ],
    () => [said('I found two bookings.', 'm2')],
  ])
  const agent = new Agent({ name: 'desk', instructions: INSTRUCTIONS, model, tools: [getBooking] })
  const first = await run(agent, 'Please find my bookings.')
  let history = first.history
  for (let k = 0; k < 8; k++) {
    const chatter = scripted([
      () => [said(`Answer ${k}: ${'seats, meals and the weather at length '.repeat(12)}`, `a${k}`)],
    ])
    const next = await run(
      new Agent({ name: 'desk', instructions: INSTRUCTIONS, model: chatter }),
      [
        ...history,
        {
          type: 'message',
          role: 'user',
          content: `Question ${k}: ${'more about seats '.repeat(8)}`,
        },
      ],
    )
    history = next.history
  }
  return history
}

/** The ledger's text among the items sent (its heading written here), or ''. */
function ledgerIn(items: unknown): string {
  const texts: string[] = []
  const walk = (v: unknown) => {
    if (typeof v === 'string') texts.push(v)
    else if (Array.isArray(v)) v.forEach(walk)
    else if (v && typeof v === 'object') Object.values(v).forEach(walk)
  }
  walk(items)
  return texts.find((t) => t.startsWith('[Earlier messages were left out')) ?? ''
}

/** Where the caller's items hold `text`: each item whose JSON holds it. */
function itemsHolding(items: readonly unknown[], text: string): number[] {
  const out: number[] = []
  items.forEach((x, i) => {
    if (JSON.stringify(x).includes(text)) out.push(i)
  })
  return out
}

/** The numbers of the `message N by` lines of a text that hold `text`. */
function linesHolding(result: string, text: string): number[] {
  return result.split('\n').flatMap((line) => {
    const m = /^message (\d+) by [^:]*:/.exec(line)
    return m && line.includes(text) ? [Number(m[1])] : []
  })
}

describe('recallToolForOpenAIAgents over the Agents SDK`s own items', () => {
  it('the history a run produced: its items are the SDK`s shapes (callId, function_call_result), read as given', async () => {
    const history = await sdkHistory()
    const types = history.map((x) => (x as { type?: string }).type)
    expect(types).toContain('function_call_result')
    expect(history.some((x) => 'callId' in x)).toBe(true)
    // The items as the SDK's own schema reads them.
    for (const item of history) expect(protocol.ModelItem.safeParse(item).success).toBe(true)
    const made = tool(recallToolForOpenAIAgents({ history: () => history, ...options }))
    const invoke = async (args: unknown) =>
      String(await made.invoke({} as RunContext, JSON.stringify(args)))
    for (const [slot, booking] of Object.entries(BOOKINGS)) {
      // The result item holding it, by its index among the caller's items.
      const [at] = itemsHolding(history, booking.booking_id)
      expect((history[at as number] as { type: string }).type).toBe('function_call_result')
      const byQuery = await invoke({ query: booking.booking_id })
      expect(linesHolding(byQuery, booking.booking_id)).toEqual([at])
      const byNumber = await invoke({ messages: [at] })
      expect(linesHolding(byNumber, booking.booking_id)).toEqual([at])
      expect(byNumber).toContain(booking.note)
      // The turn's calls: one message, numbered by the turn's first item (its text).
      const turn = itemsHolding(history, 'Looking them up.')
      expect(linesHolding(await invoke({ query: `get_booking ${slot}` }), slot)).toContain(turn[0])
    }
  })

  it('a run whose model reads the fitted input`s ledger and asks recall by its number gets the item back', async () => {
    const history = await sdkHistory()
    const [at] = itemsHolding(history, BOOKINGS.first?.booking_id as string)
    let asked: number | undefined
    const model = scripted([
      (request) => {
        // The ledger the filter put in: the number it gives the result holding the booking.
        asked = linesHolding(ledgerIn(request.input), 'BKG-40417')[0]
        return [call('r1', 'recall', { messages: [asked] })]
      },
      () => [said('Done.', 'm9')],
    ])
    const recall = tool(
      recallToolForOpenAIAgents({ history: () => history, system: INSTRUCTIONS, ...options }),
    )
    const agent = new Agent({
      name: 'desk',
      instructions: INSTRUCTIONS,
      model,
      tools: [recall],
    })
    const result = await run(agent, history, {
      callModelInputFilter: fitModelInput(options),
    })
    expect(asked).toBe(at)
    const output = result.history.find(
      (x) =>
        (x as { type?: string; callId?: string }).type === 'function_call_result' &&
        (x as { callId?: string }).callId === 'r1',
    ) as { output: { text: string } } | undefined
    const text = String(output?.output.text)
    expect(linesHolding(text, 'BKG-40417')).toEqual([at])
    expect(text).toContain('approved by Dana')
    expect(model.seen[1]?.input).toEqual(
      expect.arrayContaining([expect.objectContaining({ callId: 'r1' })]),
    )
  })
})
