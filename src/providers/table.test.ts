import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { resolveSetup } from '../context/options.js'
import { InvalidOptionError } from '../errors.js'
import { PROVIDER_APIS, providerApi, providerApiOfFormat } from './index.js'
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

/** `file: line` of every comparison with, or case on, a provider or format name outside src/providers/. */
function nameSwitches(): string[] {
  return sources(src)
    .filter((f) => !relative(src, f).startsWith('providers'))
    .flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          SWITCH.test(line) ? [`${relative(src, f).replaceAll('\\', '/')}:${i + 1}`] : [],
        ),
    )
}

/**
 * Places outside src/providers/ that still branch on a provider name, by file and count.
 * Each is a rule not yet carried by the provider object (native context management's
 * per-API fields, the codec dispatch of `encode` with per-format options, image pricing by
 * model family, the strategies' Anthropic-only head rule, the adapters' and CLI's choices).
 * The list may only shrink: a new switch on a name belongs in a provider's folder.
 */
const ALLOWED: Record<string, number> = {
  'cli/commands.ts': 2,
  'context/chat-context.ts': 1,
  'context/foreign.ts': 3,
  'formats/detect.ts': 4,
  'integrations/openai-agents.ts': 1,
  'native/context-management.ts': 2,
  'strategies/budget.ts': 1,
  'strategies/token-limited.ts': 1,
  'tokens/counters.ts': 1,
  'tokens/images.ts': 2,
}

describe('the provider table', () => {
  it('finds name switches in a file that has one (the scan can fail)', () => {
    expect(SWITCH.test("if (p === 'gemini') return")).toBe(true)
    expect(SWITCH.test("    case 'anthropic':")).toBe(true)
    expect(SWITCH.test("const f = 'gemini-2.5-pro'")).toBe(false)
  })

  it('is the only place outside the known exceptions that branches on a provider name', () => {
    const found: Record<string, number> = {}
    for (const at of nameSwitches()) {
      const file = at.slice(0, at.lastIndexOf(':'))
      found[file] = (found[file] ?? 0) + 1
    }
    const over = Object.entries(found).filter(([f, n]) => n > (ALLOWED[f] ?? 0))
    expect(over).toEqual([])
  })

  it('has one entry per provider name, each naming itself and a distinct wire format', () => {
    expect(Object.keys(PROVIDER_APIS).sort()).toEqual([...PROVIDERS].sort())
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
})
