/** How a model id finds its row of the model table: spellings, aliases, dated and suffixed ids, registered models, conservative figures for an unlisted id of a known provider. */
import { InvalidOptionError } from '../errors.js'
import { describeValue, requireArgument } from '../options-check.js'
import type { ImageModel } from './images.js'
import { type ModelInfo, models, type Tokenizer } from './model-table.js'

/**
 * How the SDKs, gateways and clouds spell a model, rewritten in order to the id the table
 * lists: the path of a gateway, router or cloud resource (`anthropic/…`, `models/…`,
 * `publishers/anthropic/models/…`, an ARN), a fine-tuned OpenAI model's base (`ft:<base>:org::id`),
 * a Bedrock inference profile and vendor (`us.anthropic.…`, `global.…`, `meta.…`), a Vertex
 * date (`@20250929`), a Bedrock version (`-v2:0`), a router's variant (`:free`, `:thinking`),
 * a router's dotted Claude version (`claude-sonnet-4.5`, `claude-3.5-sonnet`), Bedrock's
 * and Groq's Llama (`llama3-1-70b`, `llama3-70b`).
 */
const SPELLINGS: readonly (readonly [RegExp, string])[] = [
  [/^.*\//, ''],
  [/^ft:([^:]+):.*$/, '$1'],
  [/^(?:[a-z]{2,6}(?:-[a-z]+)?\.)?(?:anthropic|meta|openai|google)\./, ''],
  [/@.*$/, ''],
  // Bedrock's Claude 2 and Instant ids: their version is in the `-v` part.
  [/^claude-v2:1$/, 'claude-2-1'],
  [/^claude-v2(?::0)?$/, 'claude-2-0'],
  [/^claude-instant-v1$/, 'claude-instant-1-2'],
  // Azure's GPT-3.5 (`gpt-35-turbo`, `gpt-35-turbo-16k`, `gpt-35-turbo-instruct`).
  [/^gpt-35-/, 'gpt-3.5-'],
  // Fireworks' Llama (`llama-v3-70b-instruct`, `llama-v3p1-8b-instruct`).
  [/^llama-v(\d+)p(\d+)-/, 'llama-$1.$2-'],
  [/^llama-v(\d+)-/, 'llama-$1-'],
  [/-v\d+(?::\d+)?$/, ''],
  [/:[a-z][\w-]*$/, ''],
  [/:\d+$/, ''],
  [/^(claude-(?:[a-z]+-)?\d+)\.(\d+)/, '$1-$2'],
  [/^llama(\d+)-(\d)-/, 'llama-$1.$2-'],
  [/^llama(\d+)-/, 'llama-$1-'],
  [/^meta-llama-/, 'llama-'],
]

/** Older spellings of a listed model that its id is not a prefix of. */
const ALIASES: Readonly<Record<string, string>> = {
  'claude-2': 'claude-2-0',
  'claude-instant-1': 'claude-instant-1-2',
  'gemini-pro': 'gemini-1.0-pro',
  'gpt-4-1106-preview': 'gpt-4-turbo',
  'gpt-4-0125-preview': 'gpt-4-turbo',
  'gpt-4-vision-preview': 'gpt-4-turbo',
}

/** The id as the table would list it: lower case, every spelling of `SPELLINGS` undone. */
export function canonicalModelId(id: string): string {
  requireArgument(typeof id === 'string', 'canonicalModelId', 'id', 'a model id', id)
  let bare = id.trim().toLowerCase()
  for (const [from, to] of SPELLINGS) bare = bare.replace(from, to)
  return ALIASES[bare] ?? bare
}

/**
 * Finds a model by id, however an SDK, gateway or cloud spells it (`canonicalModelId`): a
 * registered model, else a listed one (exact, or the longest listed id the given one extends
 * with a date or suffix), else, for an id of a known provider, figures no larger than that
 * provider's (`assumed` says so). Returns undefined for an id of no known provider.
 */
export function findModel(id: string): ModelInfo | undefined {
  if (typeof id !== 'string') return undefined
  const exact = registered.get(id.trim().toLowerCase())
  if (exact) return exact
  if (!knownPath(id)) return undefined
  const bare = canonicalModelId(id)
  return registered.get(bare) ?? listedModel(id, bare) ?? unlistedModel(id, bare)
}

/**
 * The first part of a path that is a provider, gateway, router or cloud (LiteLLM's `azure/`,
 * `bedrock/`, `vertex_ai/`; OpenRouter's `openai/`; Fireworks' `accounts/`; Vertex's
 * `projects/`, `publishers/`, `models/`; an ARN). Any other (`EleutherAI/gpt-j-6b`,
 * `nvidia/llama-3.1-nemotron-70b-instruct`) is another organisation's model, whatever the
 * rest looks like: it is not taken for one of the table's.
 */
const PATHS =
  /^(?:arn:.*|openai|anthropic|google|gemini|meta|meta-llama|models|publishers|projects|azure|azure_ai|bedrock|bedrock_converse|vertex_ai|vertex_ai_beta|vertex|openrouter|accounts|fireworks|fireworks_ai|together|together_ai|groq|deepinfra|litellm_proxy)$/

function knownPath(id: string): boolean {
  const trimmed = id.trim().toLowerCase()
  const slash = trimmed.indexOf('/')
  return slash < 0 || PATHS.test(trimmed.slice(0, slash))
}

/**
 * The figures used when only the provider is known (`provider: 'anthropic'` with no model):
 * those of an unlisted model of that provider.
 */
export function providerModel(provider: ModelInfo['provider']): ModelInfo {
  return conservative(provider, provider)
}

const registered = new Map<string, ModelInfo>()

/**
 * Adds a model to the table, or overrides a listed one, for this process: its window,
 * output limit, tokenizer (`o200k_base`, `cl100k_base`, or `estimate` with `estimateFactor`)
 * and image pricing. A model registered this way is found by its exact id. Counters already
 * made for that id are not changed: register before the first fit that names it.
 */
export function registerModel(info: {
  id: string
  provider: ModelInfo['provider']
  contextWindow: number
  maxOutputTokens: number
  tokenizer: Tokenizer
  estimateFactor?: number
  image?: ImageModel
}): ModelInfo {
  const bad = (field: string, why: string): never => {
    throw new InvalidOptionError(`model.${field}`, why)
  }
  if (!info || typeof info !== 'object') bad('info', 'expected a model description')
  if (typeof info.id !== 'string' || !info.id.trim()) bad('id', 'expected a model id')
  if (!['openai', 'anthropic', 'google', 'meta'].includes(info.provider))
    bad(
      'provider',
      `expected openai, anthropic, google or meta, got ${describeValue(info.provider)}`,
    )
  for (const field of ['contextWindow', 'maxOutputTokens'] as const)
    if (!Number.isInteger(info[field]) || info[field] < 1)
      bad(field, 'expected a whole number >= 1')
  if (!['o200k_base', 'cl100k_base', 'estimate'].includes(info.tokenizer))
    bad('tokenizer', 'expected o200k_base, cl100k_base or estimate')
  const factor = info.estimateFactor
  if (
    factor !== undefined &&
    !(typeof factor === 'number' && factor >= 1 && Number.isFinite(factor))
  )
    bad('estimateFactor', 'expected a number >= 1')
  const model: ModelInfo = {
    id: info.id.trim().toLowerCase(),
    provider: info.provider,
    contextWindow: info.contextWindow,
    maxOutputTokens: info.maxOutputTokens,
    tokenizer: info.tokenizer,
    ...(info.tokenizer === 'estimate' && { estimateFactor: factor ?? 1.3 }),
    image: info.image ?? { kind: 'unknown' },
    ...(info.tokenizer !== 'estimate' && { toolFormula: 'gpt-4o' as const }),
  }
  registered.set(model.id, model)
  tableVersion++
  return model
}

let tableVersion = 0
/** Grows with every `registerModel`: what is worked out from the whole table is kept until it moves. */
export function modelTableVersion(): number {
  return tableVersion
}

/**
 * A model the table does not list, of a provider it knows by the id's form (`claude-…`,
 * `gemini-…`, `gpt-…`, `o<digit>…`, `llama-…`), with figures no larger than the provider's
 * current models': their smallest window, an output limit of a quarter of it, their largest
 * safety factor; `assumed` says so. `registerModel` gives a model its own.
 */
function unlistedModel(id: string, bare: string): ModelInfo | undefined {
  const provider: ModelInfo['provider'] | undefined = /^claude-/.test(bare)
    ? 'anthropic'
    : /^gemini-/.test(bare)
      ? 'google'
      : /^(gpt-|o\d|chatgpt-)/.test(bare)
        ? 'openai'
        : /^llama-/.test(bare)
          ? 'meta'
          : undefined
  if (!provider) return undefined
  return conservative(provider, bare, id)
}

/** What a note on figures the table does not list ends with. */
const OWN =
  'registerModel({ id, provider, contextWindow, maxOutputTokens, tokenizer }) gives its own'

/** Current models: windows of 100,000 tokens or more (older ones had far smaller windows). */
const CURRENT = 100_000

function conservative(provider: ModelInfo['provider'], bare: string, id?: string): ModelInfo {
  const own = models.filter(
    (m) => m.provider === provider && m.contextWindow >= CURRENT && !m.variant,
  )
  const contextWindow = Math.min(...own.map((m) => m.contextWindow))
  const maxOutputTokens = Math.floor(contextWindow / 4)
  const factor = Math.max(...own.map((m) => m.estimateFactor ?? 1))
  const base = own.find((m) => m.contextWindow === contextWindow) as ModelInfo
  const figures = `window ${contextWindow}, output ${maxOutputTokens}${base.tokenizer === 'estimate' ? `, counts ×${factor}` : ''}`
  return {
    ...base,
    id: bare,
    contextWindow,
    maxOutputTokens,
    ...(base.tokenizer === 'estimate' && { estimateFactor: factor }),
    assumed:
      id === undefined
        ? `no model named: figures no larger than any listed ${provider} model's are used (${figures}); name the model for its own`
        : `model ${JSON.stringify(id)} is not in the model table: figures no larger than any listed ${provider} model's are used (${figures}); ${OWN}`,
  }
}

/**
 * What may follow a listed id in an id that names the same model, part by part (`-` apart): a
 * date or snapshot number (`-2024-08-06`, `-20250929`, `-0613`, `-002`, `-05-06`), `latest`,
 * `preview`, `exp`; for Llama, the size and tuning a host names (`-70b-instruct`, `-17b-16e`,
 * `-instant`, `-versatile`, `-turbo`, `-hf`, `-fp8`); and a window (`-16k`, read as 16,000
 * at most). A whole `-0` is an alias (`claude-sonnet-4-0`).
 */
const SAME = /^(?:\d{2,8}|latest|preview|exp)$/
const LLAMA_SAME = /^(?:instruct|chat|hf|instant|versatile|turbo|fp8|\d+(?:\.\d+)?b|\d+e|a\d+b)$/
const WINDOW = /^(\d+)k$/

type Extension = { kind: 'same'; window?: number } | { kind: 'variant' } | undefined

/** How `rest`, what follows a listed id in the given one, relates the two. */
function extension(rest: string, model: ModelInfo): Extension {
  if (rest === '' || rest === '-0') return { kind: 'same' }
  if (!rest.startsWith('-')) return undefined
  const parts = rest.slice(1).split('-')
  // `-5` after `claude-sonnet-4`: another version, not this model.
  if (/^\d$/.test(parts[0] as string)) return undefined
  let window: number | undefined
  for (const part of parts) {
    const k = WINDOW.exec(part)
    if (k) window = Math.min(window ?? Number.POSITIVE_INFINITY, Number(k[1]) * 1000)
    else if (!SAME.test(part) && !(model.provider === 'meta' && LLAMA_SAME.test(part)))
      return { kind: 'variant' }
  }
  return window === undefined ? { kind: 'same' } : { kind: 'same', window }
}

/**
 * A listed model: exact, else the longest listed id the given one extends. What follows it
 * names the same model (a date, `-latest`, a host's size: `extension`), or a variant the table
 * does not list (`-audio-preview`, `-image`, `-live`, `-search`): a variant gets a window no
 * larger than the smallest its provider lists, as a variant's window can be far smaller than
 * its family's (`gpt-3.5-turbo-instruct`: 4,096; `gemini-2.5-flash-image`: 32,768).
 */
function listedModel(id: string, bare: string): ModelInfo | undefined {
  let best: ModelInfo | undefined
  let how: Extension
  for (const m of models) {
    if (bare === m.id) return m
    if (!bare.startsWith(m.id) || (best && m.id.length <= best.id.length)) continue
    const e = extension(bare.slice(m.id.length), m)
    if (e) {
      best = m
      how = e
    }
  }
  if (!best || !how) return undefined
  if (how.kind === 'variant') return variantOf(best, id)
  if (how.window === undefined || how.window >= best.contextWindow) return best
  const contextWindow = how.window
  const maxOutputTokens = Math.min(best.maxOutputTokens, Math.floor(contextWindow / 4))
  return {
    ...best,
    contextWindow,
    maxOutputTokens,
    assumed: `model ${JSON.stringify(id)} names a window of ${contextWindow} in its id: ${best.id}'s figures with that window are used (output ${maxOutputTokens}); ${OWN}`,
  }
}

/** An unlisted variant of a listed model: its counting, and the smallest window its provider lists. */
function variantOf(base: ModelInfo, id: string): ModelInfo {
  const own = models.filter((m) => m.provider === base.provider)
  const contextWindow = Math.min(...own.map((m) => m.contextWindow))
  const maxOutputTokens = Math.floor(contextWindow / 4)
  return {
    ...base,
    id: canonicalModelId(id),
    contextWindow,
    maxOutputTokens,
    variant: 'unlisted',
    assumed: `model ${JSON.stringify(id)} is a variant of ${base.id} that the model table does not list: a window no larger than any listed ${base.provider} model's is used (window ${contextWindow}, output ${maxOutputTokens}); ${OWN}`,
  }
}
