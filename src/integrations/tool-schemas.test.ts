import { ChatOpenAI } from '@langchain/openai'
import {
  Agent,
  tool as agentTool,
  OpenAIResponsesModel,
  run,
  setTracingDisabled,
} from '@openai/agents'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import { createAgent, HumanMessage, tool } from 'langchain'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { z as z3 } from 'zod/v3'
import { type LimitedServer, startLimitedServer } from '../../test/helpers/limited-server.js'
import type { FitResult } from '../context/fit.js'
import { ProviderFeedback } from '../context/limits/learned-limit.js'
import { ContextOverflowError } from '../errors.js'
import { fitAgentMessages } from './langchain.js'
import { fitAgentModel, fitModelInput } from './openai-agents.js'
import { isZodSchema, jsonSchemaOf } from './tool-schemas.js'

setTracingDisabled(true)

/** o200k tokens of a JSON value's text: the independent measure of what went out. */
const jsonTokens = (v: unknown) => encode(JSON.stringify(v), { allowedSpecial: 'all' }).length

const WORDS = 'passenger itinerary baggage allowance fare class refund voucher segment'.split(' ')
const describeField = (k: number) =>
  `The ${WORDS[k % WORDS.length]} detail number ${k}, as printed on the booking confirmation; 𝔘 ${'x.'.repeat(k % 5)}`

/**
 * A large schema (about 6,000 tokens of JSON) with the same shape in zod 3 and zod 4: many
 * described fields, nested objects, enums, arrays, optional and nullable ones.
 */
function largeSchema(zz: typeof z | typeof z3) {
  const y = zz as typeof z3
  const shape: Record<string, z3.ZodTypeAny> = {}
  for (let k = 0; k < 100; k++) {
    const d = describeField(k)
    switch (k % 6) {
      case 0:
        shape[`field_${k}`] = y.string().describe(d)
        break
      case 1:
        shape[`field_${k}`] = y.enum(['economy', 'premium', 'business', 'first']).describe(d)
        break
      case 2:
        shape[`field_${k}`] = y
          .object({
            code: y.string().describe(d),
            count: y.number().int(),
            note: y.string().optional(),
          })
          .describe(d)
        break
      case 3:
        shape[`field_${k}`] = y.array(y.object({ seat: y.string(), row: y.number() })).describe(d)
        break
      case 4:
        shape[`field_${k}`] = y.number().nullable().describe(d)
        break
      default:
        shape[`field_${k}`] = y.boolean().optional().describe(d)
    }
  }
  return y.object(shape).describe('A booking change request with every field the airline keeps')
}

/** A feedback that remembers what each fit counted. */
function recording() {
  const counted: FitResult['tokens'][] = []
  const feedback = new ProviderFeedback()
  feedback.fitted = (result) => {
    counted.push(result.tokens)
  }
  return { feedback, counted }
}

describe('zod schemas as JSON Schema', () => {
  it('converts zod 3 and zod 4 to JSON Schema with every field, nested ones included', () => {
    for (const schema of [largeSchema(z), largeSchema(z3)]) {
      expect(isZodSchema(schema)).toBe(true)
      const json = jsonSchemaOf(schema) as {
        type: string
        properties: Record<string, { description?: string; type?: unknown; anyOf?: unknown }>
        required: string[]
      }
      expect(json.type).toBe('object')
      expect(Object.keys(json.properties)).toHaveLength(100)
      expect(json.properties.field_1).toMatchObject({
        enum: ['economy', 'premium', 'business', 'first'],
      })
      expect(json.properties.field_2).toMatchObject({
        type: 'object',
        properties: { count: { type: 'integer' } },
      })
      expect(json.properties.field_0?.description).toBe(describeField(0))
      // Optional fields are not required; the rest are.
      expect(json.required).not.toContain('field_5')
      expect(json.required).toContain('field_0')
      expect(jsonTokens(json)).toBeGreaterThan(4000)
    }
    expect(isZodSchema({ type: 'object', _def: {} })).toBe(false)
    const plain = { type: 'object', properties: {} }
    expect(jsonSchemaOf(plain)).toBe(plain)
  })

  it('a self-referencing zod 3 schema is written to a bounded depth', () => {
    type Node = { name: string; children: Node[] }
    const node: z3.ZodType<Node> = z3.lazy(() =>
      z3.object({ name: z3.string(), children: z3.array(node) }),
    )
    const json = JSON.stringify(jsonSchemaOf(z3.object({ root: node })))
    expect(json.length).toBeGreaterThan(100)
    expect(json.length).toBeLessThan(200_000)
    // A tree that branches into itself twice at every level is written in bounded time and size.
    type Tree = { left?: Tree; right?: Tree }
    const tree: z3.ZodType<Tree> = z3.lazy(() =>
      z3.object({ left: tree.optional(), right: tree.optional() }),
    )
    const branching = JSON.stringify(jsonSchemaOf(z3.object({ root: tree })))
    expect(branching.length).toBeLessThan(5_000_000)
  })
})

describe('tool schemas counted as what the framework sends', () => {
  let server: LimitedServer
  beforeAll(async () => {
    server = await startLimitedServer({ window: 200_000 })
  })
  afterAll(async () => {
    await server.close()
  })

  for (const [version, zz] of [
    ['zod 4', z],
    ['zod 3', z3],
  ] as const) {
    it(`LangChain createAgent, ${version}: counted tool tokens ≥ the tokens of the tools JSON on the wire`, async () => {
      server.requests.length = 0
      const big = tool(async () => 'done', {
        name: 'change_booking',
        description: 'Change a booking',
        schema: largeSchema(zz) as never,
      })
      const { feedback, counted } = recording()
      const agent = createAgent({
        model: new ChatOpenAI({
          model: 'gpt-4o',
          apiKey: 'k',
          maxTokens: 100,
          maxRetries: 0,
          configuration: { baseURL: server.url },
        }),
        tools: [big],
        middleware: [fitAgentMessages({ reserve: 100, feedback })] as const,
      })
      await agent.invoke({ messages: [new HumanMessage('Change my booking, please.')] })
      const first = server.requests[0]
      expect(first?.path).toBe('/v1/chat/completions')
      const wire = first?.body.tools as unknown[]
      expect(wire).toHaveLength(1)
      const sent = jsonTokens(wire)
      expect(sent).toBeGreaterThan(4000)
      expect(counted[0]?.tools).toBeGreaterThanOrEqual(sent)
      // Not wildly above it either: the schema, not a guess.
      expect(counted[0]?.tools).toBeLessThan(sent * 1.5)
    })

    it(`LangChain, ${version}: a schema larger than the budget is an error, not a request`, async () => {
      server.requests.length = 0
      const big = tool(async () => 'done', {
        name: 'change_booking',
        description: 'Change a booking',
        schema: largeSchema(zz) as never,
      })
      const agent = createAgent({
        model: new ChatOpenAI({
          model: 'gpt-4o',
          apiKey: 'k',
          maxRetries: 0,
          configuration: { baseURL: server.url },
        }),
        tools: [big],
        middleware: [fitAgentMessages({ budget: 3000, reserve: 100 })] as const,
      })
      await expect(
        agent.invoke({ messages: [new HumanMessage('Change my booking, please.')] }),
      ).rejects.toMatchObject({ name: ContextOverflowError.name })
      expect(server.requests).toHaveLength(0)
    })

    it(`OpenAI Agents SDK, ${version}: the filter and the model wrapper count at least the tools JSON sent`, async () => {
      const big = agentTool({
        name: 'change_booking',
        description: 'Change a booking',
        parameters: largeSchema(zz) as never,
        execute: async () => 'done',
      })
      const client = new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0 })
      for (const wrap of ['filter', 'model'] as const) {
        server.requests.length = 0
        const { feedback, counted } = recording()
        const base = new OpenAIResponsesModel(client, 'gpt-4o')
        const agent = new Agent({
          name: 'airline',
          instructions: 'Help with bookings.',
          model: wrap === 'model' ? fitAgentModel(base, { model: 'gpt-4o', feedback }) : base,
          modelSettings: { maxTokens: 100 },
          tools: [big],
        })
        await run(agent, 'Change my booking, please.', {
          maxTurns: 2,
          ...(wrap === 'filter' && {
            callModelInputFilter: fitModelInput({ model: 'gpt-4o', feedback }),
          }),
        }).catch(() => undefined)
        const first = server.requests[0]
        expect(first?.path).toBe('/v1/responses')
        const sent = jsonTokens(first?.body.tools)
        expect(sent).toBeGreaterThan(4000)
        expect(counted[0]?.tools).toBeGreaterThanOrEqual(sent)
      }
    })
  }
})
