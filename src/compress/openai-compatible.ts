import { InvalidOptionError } from '../errors.js'
import { requireArgument, requireOptions } from '../options-check.js'
import { fieldsOf } from '../providers/codec-kit.js'
import { redact } from './redact.js'
import { errorText, type Summarizer, SummarizerError, transcript } from './summarizer.js'

export interface OpenAICompatibleOptions {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:8000/v1` (vLLM, llama.cpp, Ollama). */
  baseURL: string
  apiKey?: string
  model: string
  /** Instructions for the summarizer; the default asks to keep figures, names, links and tool outcomes. */
  prompt?: string
  /** Upper bound for the summary's `max_tokens`; the request asks for the smaller of this and what fits. */
  maxTokens?: number
  /** Per attempt. Default 30 s. */
  timeoutMs?: number
  /** Attempts after the first, for timeouts, refused connections, 429 and 5xx. Default 2. */
  retries?: number
  /** Base of the exponential backoff between attempts. Default 250 ms. */
  backoffMs?: number
}

const OPENAI_COMPATIBLE_OPTIONS = [
  'baseURL',
  'apiKey',
  'model',
  'prompt',
  'maxTokens',
  'timeoutMs',
  'retries',
  'backoffMs',
]

export const DEFAULT_PROMPT = `You compress the earlier part of a conversation so that an assistant can continue it
without the original messages. Write a faithful summary of the transcript below.
Keep exactly: figures, amounts, dates, names, identifiers, links, decisions and commitments.
For each FUNCTION_CALL, say what was called and the state of its FUNCTION_RETURN (succeeded,
failed, the key result). Do not invent anything. Write plain text, no preamble.`

/**
 * Summarizes with any server speaking OpenAI's `/chat/completions` (OpenAI, vLLM,
 * llama.cpp, Ollama), by `fetch`. Retries what is worth retrying, with backoff, and honours
 * the caller's AbortSignal. The API key is sent only in the Authorization header: never
 * logged, never in an error message.
 */
export function openAICompatibleSummarizer(options: OpenAICompatibleOptions): Summarizer {
  requireOptions(options, 'openAICompatibleSummarizer', OPENAI_COMPATIBLE_OPTIONS, {
    required: true,
  })
  for (const k of ['baseURL', 'apiKey', 'model', 'prompt'] as const)
    requireArgument(
      options[k] === undefined || typeof options[k] === 'string',
      'openAICompatibleSummarizer',
      k,
      'a string',
      options[k],
    )
  for (const k of ['maxTokens', 'timeoutMs', 'retries', 'backoffMs'] as const)
    requireArgument(
      options[k] === undefined || (typeof options[k] === 'number' && options[k] >= 0),
      'openAICompatibleSummarizer',
      k,
      'a number >= 0',
      options[k],
    )
  const {
    baseURL,
    apiKey,
    model,
    prompt = DEFAULT_PROMPT,
    timeoutMs = 30_000,
    retries = 2,
    backoffMs = 250,
  } = options
  if (!baseURL) throw new InvalidOptionError('baseURL', 'is required')
  if (!model) throw new InvalidOptionError('model', 'is required')
  // Sent without the white space around it (a key read from a file ends with a line break).
  const key = apiKey === undefined ? undefined : headerValue(apiKey)
  const url = `${baseURL.replace(/\/+$/, '')}/chat/completions`
  const hide = (s: string) => redact(s, key)

  async function attempt(body: string, signal: AbortSignal | undefined): Promise<string> {
    const timeout = AbortSignal.timeout(timeoutMs)
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout
    let res: Response
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(key && { authorization: `Bearer ${key}` }),
        },
        body,
        signal: combined,
      })
    } catch (e) {
      if (signal?.aborted) throw new SummarizerError('summarizer: aborted by the caller', false)
      if (timeout.aborted)
        throw new SummarizerError(
          hide(`summarizer: no answer from ${url} within ${timeoutMs} ms`),
          true,
        )
      // A header fetch refuses to build is not a network failure: trying again cannot help.
      if (e instanceof TypeError && /header|ByteString/i.test(e.message))
        throw new SummarizerError(
          hide(`summarizer: a request header is not a valid HTTP header value (${errorText(e)})`),
          false,
        )
      const cause = fieldsOf(fieldsOf(e).cause).code ?? errorText(e)
      throw new SummarizerError(hide(`summarizer: cannot reach ${url} (${cause})`), true)
    }
    let text: string
    try {
      text = await res.text()
    } catch {
      throw new SummarizerError(`summarizer: ${url} closed the connection mid-answer`, true)
    }
    if (!res.ok) {
      const retryable = res.status === 429 || res.status >= 500
      // Redacted whole, then cut: a cut first could keep part of the key.
      throw new SummarizerError(
        `summarizer: HTTP ${res.status} from ${hide(url)}: ${hide(text).slice(0, 200)}`,
        retryable,
        retryAfter(res.headers.get('retry-after')),
      )
    }
    let json: { choices?: { message?: { content?: unknown } }[] }
    try {
      json = JSON.parse(text)
    } catch {
      throw new SummarizerError(
        `summarizer: ${url} answered with something that is not JSON`,
        false,
      )
    }
    const content = json.choices?.[0]?.message?.content
    if (typeof content !== 'string' || content.trim() === '') {
      throw new SummarizerError(`summarizer: ${url} answered with no summary text`, false)
    }
    return content.trim()
  }

  return {
    name: `openai-compatible:${model}`,
    // The key stays out: a saved state or config never carries it.
    toJSON: () => {
      const { apiKey: _key, ...rest } = options
      return rest
    },
    async summarize({ messages, previousSummary, maxTokens, signal }) {
      const user =
        (previousSummary
          ? `Summary so far:\n${previousSummary}\n\nNewer messages:\n`
          : 'Transcript:\n') + transcript(messages)
      const body = JSON.stringify({
        model,
        messages: [
          { role: 'system', content: prompt },
          { role: 'user', content: user },
        ],
        max_tokens: Math.max(16, Math.min(maxTokens, options.maxTokens ?? maxTokens)),
        temperature: 0,
      })
      let last: SummarizerError | undefined
      for (let k = 0; k <= retries; k++) {
        // Exponential backoff, or what the server asked for (capped at the attempt timeout).
        if (k > 0)
          await sleep(Math.min(last?.retryAfterMs ?? backoffMs * 2 ** (k - 1), timeoutMs), signal)
        try {
          return await attempt(body, signal)
        } catch (e) {
          if (!(e instanceof SummarizerError) || !e.retryable) throw e
          last = e
        }
      }
      throw last
    },
  }
}

/** Retry-After in seconds or as an HTTP date, in ms; undefined when absent or unreadable. */
function retryAfter(header: string | null): number | undefined {
  if (!header) return undefined
  const seconds = Number(header)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const at = Date.parse(header)
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now())
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted)
      return reject(new SummarizerError('summarizer: aborted by the caller', false))
    const t = setTimeout(resolve, ms)
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t)
        reject(new SummarizerError('summarizer: aborted by the caller', false))
      },
      { once: true },
    )
  })
}

/**
 * The key as it goes in the Authorization header: without the white space around it. A line
 * break or NUL inside it, or a character above U+00FF, makes no valid header value (fetch
 * refuses it): said here, by position, never by value (a key pasted with a line break in the
 * middle is still a secret).
 */
function headerValue(apiKey: string): string {
  if (typeof apiKey !== 'string') throw new InvalidOptionError('apiKey', 'expected a string')
  const space = (c: number) => c === 9 || c === 10 || c === 13 || c === 32
  let start = 0
  let end = apiKey.length
  while (start < end && space(apiKey.charCodeAt(start))) start++
  while (end > start && space(apiKey.charCodeAt(end - 1))) end--
  for (let k = start; k < end; k++) {
    const c = apiKey.charCodeAt(k)
    const what =
      c === 10 || c === 13
        ? 'a line break'
        : c === 0
          ? 'a NUL character'
          : c > 0xff
            ? 'a character outside Latin-1'
            : undefined
    if (what)
      throw new InvalidOptionError(
        'apiKey',
        `holds ${what} at character ${k + 1} of ${apiKey.length}: it is not a valid HTTP header value (check how the key was read or pasted)`,
      )
  }
  return apiKey.slice(start, end)
}
