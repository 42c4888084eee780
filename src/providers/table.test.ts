import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { promptTokensOf } from '../context/limits/learned-limit.js'
import { parseOverflowError } from '../context/limits/overflow-error.js'
import { resolveSetup } from '../context/options/options.js'
import { InvalidOptionError } from '../errors.js'
import { contextManagement, readContextManagement } from '../native/context-management.js'
import { PROVIDER_CHECKS } from './checks.js'
import {
  PROVIDER_APIS,
  PROVIDER_REPLIES,
  PROVIDER_RULES,
  providerApi,
  providerApiOfFormat,
  providerRepliesOfFormat,
} from './index.js'
import { toolSchemas } from './tool-shapes.js'
import { PROVIDERS } from './validate.js'

const src = fileURLToPath(new URL('..', import.meta.url))

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return sources(path)
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : []
  })
}

const NAMES = '(openai|openai-chat|openai-responses|anthropic|gemini)'
const SWITCH = new RegExp(`(?:[!=]==\\s*'${NAMES}'|case\\s+'${NAMES}'\\s*:)`)

/** A provider API's own folder (`src/providers/<api>/`): the one place that may name it. */
const OWN_FOLDER = /^providers[\\/][^\\/]+[\\/]/

/**
 * `file: line` of every comparison with, or case on, a provider or format name outside the
 * provider APIs' own folders (the shared `validate`, tables and codec kit included).
 */
function nameSwitches(): string[] {
  return sources(src)
    .filter((f) => !OWN_FOLDER.test(relative(src, f)))
    .flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          SWITCH.test(line) ? [`${relative(src, f).replaceAll('\\', '/')}:${i + 1}`] : [],
        ),
    )
}

/**
 * Places outside the provider folders that still branch on a provider name, by file and count.
 * Each is a rule not yet carried by the provider object (image pricing by model family, the adapters' and CLI's choices).
 * The list may only shrink: a new switch on a name belongs in a provider's folder.
 */
const ALLOWED: Record<string, number> = {
  'cli/fit-options.ts': 1,
  'integrations/agents-items.ts': 1,
  'tokens/images.ts': 2,
}

describe('the provider table', () => {
  it('finds name switches in a file that has one (the scan can fail)', () => {
    expect(SWITCH.test("if (p === 'gemini') return")).toBe(true)
    expect(SWITCH.test("    case 'anthropic':")).toBe(true)
    expect(SWITCH.test("const f = 'gemini-2.5-pro'")).toBe(false)
    // The shared rule code is scanned; only an API's own folder may name it.
    expect(OWN_FOLDER.test('providers/validate.ts')).toBe(false)
    expect(OWN_FOLDER.test('providers/gemini/rules.ts')).toBe(true)
  })

  it('is the only place outside the known exceptions that branches on a provider name', () => {
    const found: Record<string, number> = {}
    for (const at of nameSwitches()) {
      const file = at.slice(0, at.lastIndexOf(':'))
      found[file] = (found[file] ?? 0) + 1
    }
    const over = Object.entries(found).filter(([f, n]) => n > (ALLOWED[f] ?? 0))
    expect(over).toEqual([])
    // The list only shrinks: an exception that no longer branches is taken off it.
    const stale = Object.keys(ALLOWED).filter((f) => (found[f] ?? 0) < (ALLOWED[f] ?? 0))
    expect(stale).toEqual([])
  })

  it('has one entry per provider name, each naming itself and a distinct wire format', () => {
    expect(Object.keys(PROVIDER_APIS).sort()).toEqual([...PROVIDERS].sort())
    // The rules table (what the core reads, without codecs) holds the same APIs' own rules.
    expect(Object.keys(PROVIDER_RULES)).toEqual(Object.keys(PROVIDER_APIS))
    // So does the table of what each sends back (read after a call, not by fitting).
    expect(Object.keys(PROVIDER_REPLIES)).toEqual(Object.keys(PROVIDER_APIS))
    // And the table of their own whole-list checks, which only validate reads.
    expect(Object.keys(PROVIDER_CHECKS)).toEqual(Object.keys(PROVIDER_APIS))
    for (const [name, api] of Object.entries(PROVIDER_APIS)) {
      const own = {
        ...(PROVIDER_RULES[name as keyof typeof PROVIDER_RULES] as unknown as Record<
          string,
          unknown
        >),
        ...(PROVIDER_REPLIES[name as keyof typeof PROVIDER_REPLIES] as unknown as Record<
          string,
          unknown
        >),
      }
      for (const [key, value] of Object.entries(own))
        expect((api as unknown as Record<string, unknown>)[key], `${name}.${key}`).toBe(value)
      // The API object is its rules, its replies and its codec (messages, and a function tool
      // written in its shape): nothing of its own beside them.
      const codec = ['decode', 'decodeAdded', 'encode', 'inModelRun', 'defineTool']
      expect(Object.keys(api).filter((k) => !(k in own) && !codec.includes(k))).toEqual([])
      expect(providerRepliesOfFormat(api.format)?.native).toBe(api.native)
    }
    for (const [name, api] of Object.entries(PROVIDER_APIS)) {
      expect(api.name).toBe(name)
      expect(providerApiOfFormat(api.format)).toBe(api)
    }
    expect(new Set(Object.values(PROVIDER_APIS).map((p) => p.format)).size).toBe(4)
  })

  it('resolves only own names: __proto__, toString and non-strings are unknown', () => {
    for (const bad of ['__proto__', 'toString', 'constructor', '', 'OpenAI', 7, {}]) {
      expect(providerApi(bad)).toBeUndefined()
      expect(() => resolveSetup({ provider: bad as never, budget: 100 })).toThrow(
        InvalidOptionError,
      )
    }
  })

  it('each codec round-trips a tool exchange through its own wire shape', () => {
    const history = [
      { role: 'system' as const, content: 'be brief' },
      { role: 'user' as const, content: 'weather in 𝔸thens?' },
      {
        role: 'assistant' as const,
        content: '',
        toolCalls: [{ id: 'call.1', name: 'weather', arguments: '{"city":"Athens"}' }],
      },
      { role: 'tool' as const, toolCallId: 'call.1', content: '21°C' },
      { role: 'assistant' as const, content: 'It is 21°C.' },
    ]
    for (const api of Object.values(PROVIDER_APIS)) {
      const { output, lost } = api.encode(history)
      expect(lost).toEqual([])
      const back = api.decode(output)
      expect(back.map((m) => m.role)).toEqual(history.map((m) => m.role))
      expect(JSON.stringify(back)).toContain('𝔸thens')
      expect(JSON.stringify(back)).toContain('21°C')
    }
  })

  // Each API's own words, as its docs and SDK errors give them (written here, apart from src/).
  const TOO_LONG: Record<string, { text: string; figures: object }> = {
    openai: {
      text: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
      figures: { limit: 128_000, actual: 130_512, prompt: 130_512 },
    },
    'openai-responses': {
      text: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
      figures: {},
    },
    anthropic: {
      text: 'prompt is too long: 215322 tokens > 200000 maximum',
      figures: { limit: 200_000, actual: 215_322, prompt: 215_322 },
    },
    gemini: {
      text: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      figures: { limit: 1_048_576, actual: 1_200_000, prompt: 1_200_000 },
    },
  }

  it("reads each API's too-long error through that API's own rule, and only that rule", () => {
    for (const [name, api] of Object.entries(PROVIDER_APIS)) {
      const sample = TOO_LONG[name]
      expect(sample, name).toBeDefined()
      const { text, figures } = sample as { text: string; figures: object }
      expect(api.overflow.read(text)).toEqual(figures)
      for (const [other, o] of Object.entries(PROVIDER_APIS))
        if (other !== name) expect(o.overflow.read(text), `${other} on ${name}`).toBeUndefined()
      // The Responses error carries OpenAI's code too: its words decide, not the code.
      expect(parseOverflowError({ message: text, code: 'context_length_exceeded' })).toEqual({
        provider: name,
        ...figures,
      })
    }
    expect(parseOverflowError({ code: 'context_length_exceeded' })).toEqual({ provider: 'openai' })
  })

  it('reads each API usage shape with cached tokens counted once', () => {
    const usage: Record<string, [object, number]> = {
      openai: [
        { usage: { prompt_tokens: 900, prompt_tokens_details: { cached_tokens: 400 } } },
        900,
      ],
      'openai-responses': [
        { usage: { input_tokens: 900, input_tokens_details: { cached_tokens: 400 } } },
        900,
      ],
      anthropic: [
        {
          usage: {
            input_tokens: 20,
            cache_read_input_tokens: 800,
            cache_creation_input_tokens: 80,
          },
        },
        900,
      ],
      gemini: [{ usageMetadata: { promptTokenCount: 900, cachedContentTokenCount: 400 } }, 900],
    }
    for (const [name, api] of Object.entries(PROVIDER_APIS)) {
      const [response, expected] = usage[name] as [object, number]
      expect(api.promptTokens(response as Record<string, unknown>), name).toBe(expected)
      expect(promptTokensOf(response), name).toBe(expected)
    }
  })

  it("runs natively what each API's folder says it runs, and the rest on the client", () => {
    const policy = { clearToolResults: {}, clearThinking: {}, compact: {} }
    for (const api of Object.values(PROVIDER_APIS)) {
      const plan = contextManagement(policy, { target: api.format })
      const native = new Set(api.native?.runs ?? [])
      for (const part of ['clearToolResults', 'clearThinking', 'compact'] as const)
        expect(plan.where[part], `${api.name} ${part}`).toBe(
          native.has(part) ? 'provider' : 'client',
        )
      expect(Object.keys(plan.body).length > 0).toBe(native.size > 0)
      const off = contextManagement(policy, { target: api.format, native: false })
      expect(off.body).toEqual({})
    }
    expect(
      readContextManagement({ output: [{ type: 'compaction', encrypted_content: 'x' }] }),
    ).toMatchObject({ provider: 'openai', compactions: [{ encrypted: true }] })
  })

  it("adds each API's published tool overheads and knows its built-in tools", () => {
    for (const api of Object.values(PROVIDER_APIS)) {
      for (const [type, tokens] of Object.entries(api.tools.overhead ?? {})) {
        const [schema] = toolSchemas([{ type: `${type}_20250124`, name: type }])
        expect(schema?.tokens, `${api.name} ${type}`).toBe(tokens)
      }
    }
    const [search] = toolSchemas([{ googleSearch: {} } as never])
    expect(search?.name).toBe('googleSearch')
    expect(() => toolSchemas([{ notATool: {} } as never])).toThrow(InvalidOptionError)
  })
})
