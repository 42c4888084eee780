import { protocol } from '@openai/agents-core'
import { describe, expect, it } from 'vitest'
import { userTurn } from '../../test/helpers/turns.js'
import { exactCounter } from '../tokens/counters.js'
import { fitModelInput } from './openai-agents.js'

/**
 * Every item kind the installed Agents SDK defines (its `protocol.ModelItem` union, read at
 * run time, so a kind a later SDK adds fails the coverage check until it has a case here), each
 * in the unit it travels in: passed through as the caller's own object when it fits, and
 * gone only with the whole of its unit when the fit drops it.
 */

type Item = Record<string, unknown>

/** The discriminants `protocol.ModelItem` accepts: `type`, with `role` for messages. */
function sdkKinds(): string[] {
  type Schema = { options?: Schema[]; shape?: Record<string, { value?: unknown }> }
  const walk = (s: Schema): Schema[] => (s.options ? s.options.flatMap(walk) : [s])
  return walk(protocol.ModelItem as unknown as Schema).map((s) => {
    const type = String(s.shape?.type?.value ?? (s.shape?.role ? 'message' : '?'))
    const role = s.shape?.role?.value
    return role === undefined ? type : `${type}/${String(role)}`
  })
}

const words = (k: number, n: number) => `${userTurn(k, n)} 𝔘𝔫𝔦 🧳`

/**
 * Each kind as a unit: the items that go or stay together (a call with its output, a model
 * turn's reasoning with what it led to). Every item is checked against the SDK's own schema.
 */
const units: Record<string, Item[]> = {
  'message/user': [{ type: 'message', role: 'user', content: words(1, 80) }],
  'message/assistant': [
    {
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: words(2, 80) }],
    },
  ],
  'message/system': [{ type: 'message', role: 'system', content: words(3, 40) }],
  tool_search_call: [
    {
      type: 'tool_search_call',
      id: 'ts.1',
      callId: 'search.1',
      execution: 'client',
      arguments: { query: 'fares' },
      status: 'completed',
    },
    {
      type: 'tool_search_output',
      id: 'tso.1',
      callId: 'search.1',
      execution: 'client',
      status: 'completed',
      tools: [{ type: 'function', name: 'lookup', description: words(4, 30) }],
    },
  ],
  hosted_tool_call: [
    {
      type: 'hosted_tool_call',
      id: 'ws_1',
      name: 'web_search_call',
      status: 'completed',
      output: words(5, 60),
      providerData: { type: 'web_search_call', action: { type: 'search', query: 'fares' } },
    },
    {
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Found it.' }],
    },
  ],
  program: [
    { type: 'program', callId: 'prog.1', code: `print("${words(6, 30)}")`, fingerprint: 'f1' },
    { type: 'program_output', callId: 'prog.1', output: words(7, 60), status: 'completed' },
  ],
  function_call: [
    { type: 'function_call', callId: 'call.1', name: 'lookup', arguments: '{"q":"𝔘"}' },
    {
      type: 'function_call_result',
      callId: 'call.1',
      name: 'lookup',
      status: 'completed',
      output: { type: 'text', text: words(8, 60) },
    },
  ],
  computer_call: [
    {
      type: 'computer_call',
      callId: 'comp.1',
      status: 'completed',
      action: { type: 'click', x: 1, y: 2, button: 'left' },
    },
    {
      type: 'computer_call_result',
      callId: 'comp.1',
      output: { type: 'computer_screenshot', data: 'data:image/png;base64,iVBORw0KGgo=' },
    },
  ],
  shell_call: [
    { type: 'shell_call', callId: 'sh.1', status: 'completed', action: { commands: ['ls -la'] } },
    {
      type: 'shell_call_output',
      callId: 'sh.1',
      output: [{ stdout: words(9, 60), stderr: '', outcome: { type: 'exit', exitCode: 0 } }],
    },
  ],
  apply_patch_call: [
    {
      type: 'apply_patch_call',
      callId: 'ap.1',
      status: 'completed',
      operation: { type: 'create_file', path: 'a.txt', diff: `+${words(10, 40)}` },
    },
    { type: 'apply_patch_call_output', callId: 'ap.1', status: 'completed', output: 'done' },
  ],
  reasoning: [
    {
      type: 'reasoning',
      id: 'rs_1',
      content: [{ type: 'input_text', text: words(11, 30) }],
      providerData: { encrypted_content: 'enc.1' },
    },
    {
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: words(12, 40) }],
    },
  ],
  compaction: [{ type: 'compaction', id: 'cmp_1', encrypted_content: `C${'c'.repeat(200)}` }],
  unknown: [
    { type: 'unknown', id: 'u_1', providerData: { type: 'mcp_list_tools', data: words(13, 40) } },
  ],
}
// The outputs are part of their call's unit, not kinds of their own here.
const covered = new Set([
  ...Object.keys(units),
  'tool_search_output',
  'program_output',
  'function_call_result',
  'computer_call_result',
  'shell_call_output',
  'apply_patch_call_output',
])

/**
 * Kinds the fit keeps at every budget where anything is sent, by design: the newest
 * compaction item stands for the history before it. (A system item among the turns is an
 * ordinary unit; the agent's instructions are the system prompt the plan requires.)
 */
const kept = new Set(['compaction'])

/**
 * A history with the unit between an older turn and the newest question; a compaction item
 * first, as the API returns it (it stands for what came before, which is not sent with it).
 */
function history(kind: string, unit: Item[]): Item[] {
  const older = [
    { type: 'message', role: 'user', content: words(20, 300) },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Noted.' }] },
  ]
  const newest = { type: 'message', role: 'user', content: 'And the seat?' }
  return kind === 'compaction' ? [...unit, ...older, newest] : [...older, ...unit, newest]
}

describe('OpenAI Agents items: every kind the SDK defines', () => {
  it('the installed SDK defines no kind without a case here', () => {
    const kinds = sdkKinds()
    expect(kinds.length).toBeGreaterThanOrEqual(19)
    expect(kinds.filter((k) => !covered.has(k))).toEqual([])
  })

  it.each(Object.entries(units))('%s: valid by the SDK schema', (_kind, unit) => {
    for (const item of unit) expect(protocol.ModelItem.safeParse(item).success).toBe(true)
  })

  it.each(Object.entries(units))(
    '%s: passes through as the caller’s own objects when it fits',
    (kind, unit) => {
      const input = history(kind, unit)
      const filter = fitModelInput({ counter: exactCounter(), budget: 100_000, reserve: 0 })
      const out = filter({ modelData: { input, instructions: 'Be brief.' } }).input
      expect(out.length).toBe(input.length)
      for (const [i, item] of out.entries()) expect(item).toBe(input[i])
    },
  )

  it.each(Object.entries(units))(
    '%s: at every budget, gone only with the whole of its unit',
    (kind, unit) => {
      const input = history(kind, unit)
      let dropped = 0
      let sent = 0
      for (let budget = 10; budget <= 2000; budget += 10) {
        const filter = fitModelInput({ counter: exactCounter(), budget, reserve: 0 })
        let out: readonly unknown[]
        try {
          out = filter({ modelData: { input, instructions: 'Be brief.' } }).input
        } catch (error) {
          // Too small for the newest question: a typed error, nothing sent.
          expect((error as Error).name).toBe('ContextOverflowError')
          continue
        }
        const present = unit.map((item) => out.includes(item))
        // Whole or not at all; a unit item is never rewritten into something else.
        expect(new Set(present).size, `budget ${budget}`).toBe(1)
        sent++
        if (!present[0]) dropped++
        // Order kept.
        const at = out.filter((o) => input.includes(o as Item)).map((o) => input.indexOf(o as Item))
        expect(at).toEqual([...at].sort((a, b) => a - b))
        // The newest question always goes.
        expect(out.at(-1)).toBe(input.at(-1))
      }
      expect(sent).toBeGreaterThan(0)
      // The sweep reached budgets where the unit went, but for the kinds kept by design.
      if (kept.has(kind)) expect(dropped).toBe(0)
      else expect(dropped).toBeGreaterThan(0)
    },
  )
})

describe('Responses API items (call_id) for the calls the caller runs', () => {
  const apiUnits: Record<string, Item[]> = {
    shell_call: [
      {
        type: 'shell_call',
        id: 'sh_1',
        call_id: 'c.1',
        status: 'completed',
        action: { commands: ['ls'] },
      },
      {
        type: 'shell_call_output',
        call_id: 'c.1',
        output: [{ stdout: words(30, 40), stderr: '', outcome: { type: 'exit', exit_code: 0 } }],
      },
    ],
    computer_call: [
      {
        type: 'computer_call',
        id: 'cu_1',
        call_id: 'c.2',
        status: 'completed',
        action: { type: 'click', x: 1, y: 2, button: 'left' },
        pending_safety_checks: [],
      },
      {
        type: 'computer_call_output',
        call_id: 'c.2',
        output: { type: 'computer_screenshot', image_url: 'data:image/png;base64,iVBORw0KGgo=' },
      },
    ],
    apply_patch_call: [
      {
        type: 'apply_patch_call',
        id: 'ap_1',
        call_id: 'c.3',
        status: 'completed',
        operation: { type: 'create_file', path: 'a.txt', diff: `+${words(31, 30)}` },
      },
      { type: 'apply_patch_call_output', call_id: 'c.3', status: 'completed', output: 'done' },
    ],
    custom_tool_call: [
      {
        type: 'custom_tool_call',
        id: 'ct_1',
        call_id: 'c.4',
        name: 'grammar',
        input: words(32, 20),
      },
      { type: 'custom_tool_call_output', call_id: 'c.4', output: words(33, 30) },
    ],
    local_shell_call: [
      {
        type: 'local_shell_call',
        id: 'ls_1',
        call_id: 'c.5',
        status: 'completed',
        action: { type: 'exec', command: ['ls'], env: {} },
      },
      { type: 'local_shell_call_output', id: 'lso_1', call_id: 'c.5', output: words(34, 30) },
    ],
  }

  it.each(Object.entries(apiUnits))(
    '%s: passes through when it fits, goes only whole',
    (kind, unit) => {
      const input = history(kind, unit)
      const all = fitModelInput({ counter: exactCounter(), budget: 100_000, reserve: 0 })({
        modelData: { input, instructions: 'Be brief.' },
      }).input
      expect(all).toEqual(input)
      for (const [i, item] of all.entries()) expect(item).toBe(input[i])
      let dropped = 0
      for (let budget = 10; budget <= 2000; budget += 10) {
        let out: readonly unknown[]
        try {
          out = fitModelInput({ counter: exactCounter(), budget, reserve: 0 })({
            modelData: { input, instructions: 'Be brief.' },
          }).input
        } catch (error) {
          expect((error as Error).name).toBe('ContextOverflowError')
          continue
        }
        const present = unit.map((item) => out.includes(item))
        expect(new Set(present).size, `budget ${budget}`).toBe(1)
        if (!present[0]) dropped++
      }
      expect(dropped).toBeGreaterThan(0)
    },
  )
})

describe('a model turn the fit writes anew', () => {
  it.each(['program', 'computer_call', 'shell_call', 'apply_patch_call', 'tool_search_call'])(
    '%s: its call and output go out as the items they were, never as a function call',
    (kind) => {
      const [call, output] = units[kind] as [Item, Item]
      // The same turn also holds a function call with no output: the fit drops that call, so
      // the turn's message is written anew.
      const input: Item[] = [
        { type: 'message', role: 'user', content: 'Run it.' },
        { type: 'function_call', callId: 'lonely.1', name: 'lookup', arguments: '{}' },
        call,
        output,
        { type: 'message', role: 'user', content: 'And now?' },
      ]
      const out = fitModelInput({ counter: exactCounter(), budget: 100_000, reserve: 0 })({
        modelData: { input, instructions: 'Be brief.' },
      }).input as Item[]
      expect(out.some((i) => i.callId === 'lonely.1')).toBe(false)
      expect(out).toContainEqual(call)
      expect(out).toContainEqual(output)
      expect(out.filter((i) => i.type === 'function_call')).toEqual([])
      for (const item of out) expect(protocol.ModelItem.safeParse(item).success).toBe(true)
    },
  )
})
