/** Reading a Gemini request or content list into messages. */
import { InvalidInputError } from '../../errors.js'
import type { GeminiInput, ReaderInput } from '../../messages/input.js'
import type { Message } from '../../messages/message.js'
import { describeValue, requireArgument, requireOptions } from '../../options-check.js'
import { decodedAt, describe, fail, isJson, isList, type Json, refuseDeep } from '../codec-kit.js'
import { decodeModel, decodePlainPart, decodeUser } from './decode-turns.js'
import { type FromGeminiOptions, withMeta } from './wire.js'

/**
 * Decodes a Gemini conversation: `{ contents, systemInstruction }` (also under `config`, or
 * `system_instruction`), or a bare `contents` list. A model turn becomes one assistant
 * message (thought parts in `thought`, each part's `thoughtSignature` kept on that part);
 * a user turn of `functionResponse` parts becomes one tool message per response, paired
 * with its call by id, else by name and position. Throws `InvalidInputError` naming the turn.
 */
export function fromGemini<const T>(
  input: ReaderInput<T, GeminiInput>,
  options: FromGeminiOptions = {},
): Message[] {
  return readGemini(input, options)
}

/** `fromGemini` for a value of any type (a caller generic over the SDK's content type). */
export function readGemini(input: unknown, options: FromGeminiOptions = {}): Message[] {
  requireOptions(options, 'fromGemini', ['firstTurn', 'openCalls'])
  requireArgument(
    options.openCalls === undefined ||
      (Array.isArray(options.openCalls) &&
        options.openCalls.every((c) => typeof c?.id === 'string' && typeof c.name === 'string')),
    'fromGemini',
    'openCalls',
    'a list of { id, name }',
    options.openCalls,
  )
  requireArgument(
    options.firstTurn === undefined ||
      (Number.isSafeInteger(options.firstTurn) && options.firstTurn >= 0),
    'fromGemini',
    'firstTurn',
    'a whole number >= 0',
    options.firstTurn,
  )
  const first = options.firstTurn ?? 0
  // A turn nested too deep is named by its place in the history, as every other error is.
  decodedAt(first, () => refuseDeep(input))
  const out: Message[] = []
  let contents: unknown
  if (Array.isArray(input)) contents = input
  else if (isJson(input)) {
    const req = input
    contents = req.contents
    const config = req.config
    const [sys, where] =
      req.systemInstruction !== undefined
        ? [req.systemInstruction, 'systemInstruction']
        : req.system_instruction !== undefined
          ? [req.system_instruction, 'system_instruction']
          : isJson(config) && config.systemInstruction !== undefined
            ? [config.systemInstruction, 'config']
            : [undefined, '']
    if (sys !== undefined && sys !== null) out.push(decodeSystem(sys, where))
  }
  if (!isList(contents))
    throw new InvalidInputError('expected a list of contents or an object with "contents"', {
      field: 'contents',
    })
  // Calls of the last model turn not answered yet, for responses that carry no id.
  let pending: { id: string; name: string }[] = [...(options.openCalls ?? [])]
  contents.forEach((raw, k) => {
    const i = first + k
    if (!isJson(raw) || Array.isArray(raw))
      fail(i, 'content', `expected an object, got ${describe(raw)}`)
    const c = raw
    const role = c.role
    if (role !== undefined && role !== 'user' && role !== 'model')
      fail(i, 'role', `expected "user" or "model", got ${describeValue(role)}`)
    if (!isList(c.parts)) fail(i, 'parts', `expected a list, got ${describe(c.parts)}`)
    // `pinned: true` is the library's (sent whenever the system prompt is), never the wire's.
    const { role: _r, parts: _p, ...extra } = c
    const pinned = typeof extra.pinned === 'boolean' ? extra.pinned : undefined
    if (pinned !== undefined) delete extra.pinned
    const turn: Json = { turn: i, ...(Object.keys(extra).length && { extra }) }
    if (role === undefined) turn.noRole = true
    const parts = c.parts.map((p, k) => {
      if (!isJson(p) || Array.isArray(p))
        fail(i, `parts.${k}`, `expected an object, got ${describe(p)}`)
      return p
    })
    const from = out.length
    if (role === 'model') {
      const m = decodeModel(parts, i, turn)
      pending = (m.toolCalls ?? []).map((call) => ({ id: call.id, name: call.name }))
      out.push(m)
    } else {
      out.push(...decodeUser(parts, i, turn, pending))
      pending = []
    }
    if (pinned === true) for (const x of out.splice(from)) out.push({ ...x, pinned: true })
  })
  return out
}

function decodeSystem(sys: unknown, where: string): Message {
  const data: Json = { system: where }
  if (typeof sys === 'string')
    return withMeta({ role: 'system', content: sys }, { ...data, form: 'string' })
  if (!isJson(sys)) fail(-1, where, `expected a string or a content, got ${describe(sys)}`)
  const s = sys
  if (!isList(s.parts)) {
    // A single part.
    return withMeta(
      { role: 'system', content: [decodePlainPart(s, -1, where)] },
      { ...data, form: 'part' },
    )
  }
  const { parts: _p, ...extra } = s
  const content = s.parts.map((p, k) => decodePlainPart(p, -1, `${where}.parts.${k}`))
  return withMeta({ role: 'system', content }, { ...data, form: 'content', extra })
}
