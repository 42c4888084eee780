import { InvalidInputError } from '../../errors.js'
import type { GeminiInput, ReaderInput } from '../../messages/input.js'
import type {
  AssistantMessage,
  ContentPart,
  Message,
  TextPart,
  ToolCall,
  ToolMessage,
} from '../../messages/message.js'
import { describeValue, requireArgument, requireOptions } from '../../options-check.js'
import {
  decodedAt,
  describe,
  detach,
  fail,
  type Json,
  type Loss,
  metadataFor,
  parseArguments,
  refuseDeep,
  requireList,
} from '../codec-kit.js'

/** The key under which this codec keeps what it needs for an exact round trip. */
export const GEMINI = 'gemini'

const { meta, withMeta } = metadataFor(GEMINI)

// Structural copies of @google/genai's types: assignable to `Content` and `Part` without
// importing the SDK.

export interface GeminiPart {
  text?: string
  thought?: boolean
  /** Returned byte for byte on the part that carried it. */
  thoughtSignature?: string
  inlineData?: { mimeType?: string; data?: string; displayName?: string }
  fileData?: { mimeType?: string; fileUri?: string; displayName?: string }
  functionCall?: { id?: string; name?: string; args?: Record<string, unknown> }
  functionResponse?: {
    id?: string
    name?: string
    response?: Record<string, unknown>
    /** Media of the response (an image a tool returned), beside its JSON. */
    parts?: GeminiFunctionResponsePart[]
    willContinue?: boolean
  }
}

/** A media part of a function response: inline bytes or a file's URI. */
export interface GeminiFunctionResponsePart {
  inlineData?: { mimeType?: string; data?: string; displayName?: string }
  fileData?: { mimeType?: string; fileUri?: string; displayName?: string }
}

export interface GeminiContent {
  role?: 'user' | 'model'
  parts?: GeminiPart[]
}

/** A Gemini request's conversation: what `generateContent` takes as `contents` and `config.systemInstruction`. */
export interface GeminiRequest {
  systemInstruction?: GeminiContent | string
  contents: GeminiContent[]
}

type Slot = { t: 'text' } | { t: 'thought'; part: Json } | { t: 'call' } | { t: 'other' }

export interface FromGeminiOptions {
  /** Where these turns start in a longer history: ids made up for calls without one stay unique. */
  firstTurn?: number
  /** Calls of the turn just before these, still waiting: responses without ids answer them by name. */
  openCalls?: readonly { id: string; name: string }[]
}

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
  else if (input && typeof input === 'object') {
    const req = input as Json
    contents = req.contents
    const config = req.config as Json | undefined
    const [sys, where] =
      req.systemInstruction !== undefined
        ? [req.systemInstruction, 'systemInstruction']
        : req.system_instruction !== undefined
          ? [req.system_instruction, 'system_instruction']
          : config && typeof config === 'object' && config.systemInstruction !== undefined
            ? [config.systemInstruction, 'config']
            : [undefined, '']
    if (sys !== undefined && sys !== null) out.push(decodeSystem(sys, where))
  }
  if (!Array.isArray(contents))
    throw new InvalidInputError('expected a list of contents or an object with "contents"', {
      field: 'contents',
    })
  // Calls of the last model turn not answered yet, for responses that carry no id.
  let pending: { id: string; name: string }[] = [...(options.openCalls ?? [])]
  contents.forEach((raw, k) => {
    const i = first + k
    if (!raw || typeof raw !== 'object' || Array.isArray(raw))
      fail(i, 'content', `expected an object, got ${describe(raw)}`)
    const c = raw as Json
    const role = c.role
    if (role !== undefined && role !== 'user' && role !== 'model')
      fail(i, 'role', `expected "user" or "model", got ${describeValue(role)}`)
    if (!Array.isArray(c.parts)) fail(i, 'parts', `expected a list, got ${describe(c.parts)}`)
    // `pinned: true` is the library's (sent whenever the system prompt is), never the wire's.
    const { role: _r, parts: _p, ...extra } = c
    const pinned = typeof extra.pinned === 'boolean' ? extra.pinned : undefined
    if (pinned !== undefined) delete extra.pinned
    const turn: Json = { turn: i, ...(Object.keys(extra).length && { extra }) }
    if (role === undefined) turn.noRole = true
    const parts = c.parts as unknown[]
    parts.forEach((p, k) => {
      if (!p || typeof p !== 'object' || Array.isArray(p))
        fail(i, `parts.${k}`, `expected an object, got ${describe(p)}`)
    })
    const from = out.length
    if (role === 'model') {
      const m = decodeModel(parts as Json[], i, turn)
      pending = (m.toolCalls ?? []).map((call) => ({ id: call.id, name: call.name }))
      out.push(m)
    } else {
      out.push(...decodeUser(parts as Json[], i, turn, pending))
      pending = []
    }
    if (pinned === true)
      for (let k = from; k < out.length; k++) out[k] = { ...(out[k] as Message), pinned: true }
  })
  return out
}

function decodeSystem(sys: unknown, where: string): Message {
  const data: Json = { system: where }
  if (typeof sys === 'string')
    return withMeta({ role: 'system', content: sys }, { ...data, form: 'string' })
  if (!sys || typeof sys !== 'object')
    fail(-1, where, `expected a string or a content, got ${describe(sys)}`)
  const s = sys as Json
  if (!Array.isArray(s.parts)) {
    // A single part.
    return withMeta(
      { role: 'system', content: [decodePlainPart(s, -1, where)] },
      { ...data, form: 'part' },
    )
  }
  const { parts, ...extra } = s
  const content = (parts as unknown[]).map((p, k) => decodePlainPart(p, -1, `${where}.parts.${k}`))
  return withMeta({ role: 'system', content }, { ...data, form: 'content', extra })
}

/** A text or media part: canonical content, its other fields kept. */
function decodePlainPart(raw: unknown, i: number, field: string): ContentPart {
  if (!raw || typeof raw !== 'object') fail(i, field, `expected an object, got ${describe(raw)}`)
  const p = raw as Json
  if (typeof p.text === 'string' && !p.thought) {
    const { text, ...extra } = p
    return withMeta({ type: 'text', text }, extra)
  }
  const blob = p.inlineData as Json | undefined
  if (blob && typeof blob === 'object' && typeof blob.data === 'string') {
    const { inlineData: _b, ...extra } = p
    const { data, mimeType, ...blobExtra } = blob
    const mediaType = typeof mimeType === 'string' ? mimeType : 'application/octet-stream'
    const part: ContentPart = mediaType.startsWith('image/')
      ? { type: 'image', data, mediaType }
      : { type: 'file', data, mediaType }
    return withMeta(part, { ...extra, ...(Object.keys(blobExtra).length && { blobExtra }) })
  }
  const file = p.fileData as Json | undefined
  if (file && typeof file === 'object' && typeof file.fileUri === 'string') {
    const { fileData: _f, ...extra } = p
    const { fileUri, mimeType, ...fileExtra } = file
    const mediaType = typeof mimeType === 'string' ? mimeType : undefined
    const part: ContentPart = mediaType?.startsWith('image/')
      ? { type: 'image', url: fileUri, mediaType }
      : { type: 'file', url: fileUri, ...(mediaType && { mediaType }) }
    return withMeta(part, {
      ...extra,
      ...(Object.keys(fileExtra).length && { fileExtra }),
      ...(mimeType === undefined && { noMime: true }),
    })
  }
  // Anything else (code execution, video metadata): kept whole, counted as its JSON.
  return withMeta({ type: 'text', text: JSON.stringify(p) }, { part: p })
}

function decodeModel(parts: Json[], i: number, turn: Json): AssistantMessage {
  const content: ContentPart[] = []
  const calls: ToolCall[] = []
  const thoughts: string[] = []
  const layout: Slot[] = []
  parts.forEach((p, k) => {
    if (p.functionCall !== undefined) {
      const fc = p.functionCall as Json
      if (!fc || typeof fc !== 'object')
        fail(i, `parts.${k}.functionCall`, `expected an object, got ${describe(fc)}`)
      const { functionCall: _fc, ...partExtra } = p
      const { id, name, args, ...callExtra } = fc
      if (typeof name !== 'string' || !name)
        fail(i, `parts.${k}.functionCall.name`, `expected a string, got ${describe(name)}`)
      if (id !== undefined && (typeof id !== 'string' || !id))
        fail(i, `parts.${k}.functionCall.id`, `expected a non-empty string, got ${describe(id)}`)
      if (args !== undefined && (!args || typeof args !== 'object' || Array.isArray(args)))
        fail(i, `parts.${k}.functionCall.args`, `expected an object, got ${describe(args)}`)
      calls.push(
        withMeta(
          {
            id: (id as string | undefined) ?? `gemini_${i}_${k}`,
            name,
            arguments: JSON.stringify(args ?? {}),
          },
          {
            ...(id === undefined && { idAbsent: true }),
            ...(args === undefined && { argsAbsent: true }),
            ...(Object.keys(partExtra).length && { partExtra }),
            ...(Object.keys(callExtra).length && { callExtra }),
          },
        ),
      )
      layout.push({ t: 'call' })
    } else if (p.thought === true) {
      if (p.text !== undefined && typeof p.text !== 'string')
        fail(i, `parts.${k}.text`, `expected a string, got ${describe(p.text)}`)
      thoughts.push((p.text as string | undefined) ?? '')
      layout.push({ t: 'thought', part: p })
    } else {
      const part = decodePlainPart(p, i, `parts.${k}`)
      content.push(part)
      layout.push(part.type === 'text' && !meta(part).part ? { t: 'text' } : { t: 'other' })
    }
  })
  const plain =
    content.length === 1 &&
    layout.length === 1 &&
    content[0]?.type === 'text' &&
    content[0].text !== '' &&
    !content[0].providerMetadata &&
    !turn.extra &&
    !turn.noRole
  if (plain)
    return withMeta({ role: 'assistant', content: (content[0] as TextPart).text }, { turn: i })
  const out: AssistantMessage = { role: 'assistant', content }
  if (calls.length) out.toolCalls = calls
  if (thoughts.length) out.thought = thoughts.join('\n\n')
  return withMeta(out, { ...turn, layout })
}

/** A queue of the open calls that share an id or a name: `next` is the first not looked at. */
type Queue = { calls: { id: string; used: boolean }[]; next: number }

/**
 * The calls of the model turn before, open until a response answers one: by its id, else the
 * first open call of its name. Each answer costs the same however many calls the turn has
 * (a list searched and spliced per response made one turn of K parallel calls cost K² steps).
 */
class OpenCalls {
  private readonly byId = new Map<string, Queue>()
  private readonly byName = new Map<string, Queue>()
  constructor(calls: readonly { id: string; name: string }[]) {
    for (const c of calls) {
      const call = { id: c.id, used: false }
      for (const [map, key] of [
        [this.byId, c.id],
        [this.byName, c.name],
      ] as const) {
        const q = map.get(key)
        if (q) q.calls.push(call)
        else map.set(key, { calls: [call], next: 0 })
      }
    }
  }

  /** The first open call in `q`, now answered. */
  private static take(q: Queue | undefined): string | undefined {
    if (!q) return undefined
    while (q.next < q.calls.length && (q.calls[q.next] as { used: boolean }).used) q.next++
    const call = q.calls[q.next]
    if (!call) return undefined
    call.used = true
    return call.id
  }

  takeId(id: string): void {
    OpenCalls.take(this.byId.get(id))
  }

  takeName(name: string): string | undefined {
    return OpenCalls.take(this.byName.get(name))
  }
}

function decodeUser(
  parts: Json[],
  i: number,
  turn: Json,
  pending: { id: string; name: string }[],
): Message[] {
  const out: Message[] = []
  const content: ContentPart[] = []
  const open = new OpenCalls(pending)
  let responses = 0
  parts.forEach((p, k) => {
    if (p.functionResponse === undefined) {
      content.push(decodePlainPart(p, i, `parts.${k}`))
      return
    }
    const fr = p.functionResponse as Json
    if (!fr || typeof fr !== 'object')
      fail(i, `parts.${k}.functionResponse`, `expected an object, got ${describe(fr)}`)
    const { functionResponse: _fr, ...partExtra } = p
    const { id, name, response, ...responseExtra } = fr
    // Media beside the JSON (an image a tool returned): content parts after the response's text.
    const media: ContentPart[] = []
    if (Array.isArray(responseExtra.parts) && responseExtra.parts.length > 0) {
      ;(responseExtra.parts as unknown[]).forEach((q, n) => {
        media.push(decodePlainPart(q, i, `parts.${k}.functionResponse.parts.${n}`))
      })
      delete responseExtra.parts
    }
    if (typeof name !== 'string')
      fail(i, `parts.${k}.functionResponse.name`, `expected a string, got ${describe(name)}`)
    if (id !== undefined && (typeof id !== 'string' || !id))
      fail(i, `parts.${k}.functionResponse.id`, `expected a non-empty string, got ${describe(id)}`)
    if (
      response !== undefined &&
      (!response || typeof response !== 'object' || Array.isArray(response))
    )
      fail(
        i,
        `parts.${k}.functionResponse.response`,
        `expected an object, got ${describe(response)}`,
      )
    // Without an id, a response answers the first open call of its name; none: an orphan.
    let callId = id as string | undefined
    if (callId === undefined) callId = open.takeName(name) ?? `gemini_orphan_${i}_${k}`
    else open.takeId(callId)
    const r = (response ?? {}) as Json
    const keys = Object.keys(r)
    let form: string
    let text: string
    let isError = false
    if (keys.length === 1 && typeof r.output === 'string') {
      form = 'output'
      text = r.output
    } else if (keys.length === 1 && typeof r.error === 'string') {
      form = 'error'
      text = r.error
      isError = true
    } else {
      form = 'json'
      text = JSON.stringify(r)
    }
    const msg: ToolMessage = {
      role: 'tool',
      toolCallId: callId,
      toolName: name,
      content: media.length ? [...(text ? [{ type: 'text' as const, text }] : []), ...media] : text,
      ...(isError && { isError: true }),
    }
    out.push(
      withMeta(msg, {
        turn: i,
        form,
        ...(id === undefined && { idAbsent: true }),
        ...(response === undefined && { responseAbsent: true }),
        ...(Object.keys(partExtra).length && { partExtra }),
        ...(Object.keys(responseExtra).length && { responseExtra }),
        ...(turn.extra !== undefined && { extra: turn.extra }),
      }),
    )
    responses++
  })
  if (content.length || responses === 0) {
    const plain =
      content.length === 1 &&
      content[0]?.type === 'text' &&
      content[0].text !== '' &&
      !content[0].providerMetadata &&
      !turn.extra &&
      !turn.noRole &&
      responses === 0
    out.push(
      plain
        ? withMeta({ role: 'user', content: (content[0] as TextPart).text }, { turn: i })
        : withMeta({ role: 'user', content }, turn),
    )
  }
  return out
}

/**
 * Encodes messages as a Gemini request: the leading system messages as `systemInstruction`,
 * the rest as `contents`. Tool results go in a user turn of their own, right after the turn
 * of their calls; signatures go back byte for byte on the parts that carried them. Messages
 * decoded by `fromGemini` come back as they were.
 */
export function toGemini(messages: readonly Message[]): GeminiRequest {
  const { output } = encodeGemini(messages)
  return output
}

/**
 * `toGemini` with what could not be carried, by output turn. A decoded request's system
 * instruction goes back where it was (`systemInstruction`, `system_instruction` or
 * `config`); `bare` writes every message into `contents` (for a bare list).
 */
export function encodeGemini(
  messages: readonly Message[],
  options: { bare?: boolean } = {},
): {
  output: GeminiRequest & { config?: Json }
  lost: Loss[]
} {
  requireList(messages)
  requireOptions(options, 'encodeGemini', ['bare'])
  const lost: Loss[] = []
  let k = 0
  const lead: Message[] = []
  if (!options.bare)
    while (k < messages.length && messages[k]?.role === 'system')
      lead.push(messages[k++] as Message)
  const contents: Json[] = []
  let open: Json[] | undefined
  const names = new Map<string, { name: string; idAbsent: boolean }>()
  for (; k < messages.length; k++) {
    const m = messages[k] as Message
    const data = meta(m)
    if (m.role === 'tool') {
      if (!open) {
        open = []
        contents.push({ role: 'user', parts: open, ...((data.extra as Json | undefined) ?? {}) })
      }
      open.push(encodeResponse(m, names.get(m.toolCallId)))
      continue
    }
    open = undefined
    if (m.role === 'assistant') {
      for (const c of m.toolCalls ?? [])
        names.set(c.id, { name: c.name, idAbsent: !!meta(c).idAbsent })
      if (m.thought !== undefined && !data.layout)
        lost.push({
          index: contents.length,
          what: `reasoning of message ${k} (no thought part to send it in)`,
        })
      const parts = encodeModel(m)
      // Gemini rejects a turn without parts: nothing of this message can be sent.
      if (parts.length === 0) lost.push({ index: contents.length, what: `empty message ${k}` })
      else contents.push(turnOf('model', data, parts))
      continue
    }
    if (m.role === 'system') {
      lost.push({ index: contents.length, what: `system message ${k} sent as user text` })
      // Its images and files go in the same turn, as a user's would.
      const media = typeof m.content === 'string' ? [] : m.content.filter((p) => p.type !== 'text')
      contents.push({
        role: 'user',
        parts: [{ text: `[system] ${textOf(m.content)}` }, ...media.map(encodePart)],
      })
      continue
    }
    const parts = encodePlain(m.content)
    if (parts.length === 0) lost.push({ index: contents.length, what: `empty message ${k}` })
    else contents.push(turnOf('user', data, parts))
  }
  const output: GeminiRequest & { config?: Json } = { contents: contents as GeminiContent[] }
  if (lead.length) {
    const first = lead[0] as Message
    const data = meta(first)
    const where = (data.system as string | undefined) ?? 'systemInstruction'
    let sys: unknown
    if (lead.length === 1 && data.form === 'string' && typeof first.content === 'string')
      sys = first.content
    else if (
      lead.length === 1 &&
      data.form === 'part' &&
      Array.isArray(first.content) &&
      first.content.length === 1
    )
      sys = encodePlain(first.content)[0]
    else
      sys = {
        ...((data.extra as Json | undefined) ?? {}),
        parts: lead.flatMap((m) => encodePlain(m.content)),
      }
    if (where === 'config') output.config = { systemInstruction: sys }
    else if (where === 'system_instruction') (output as unknown as Json).system_instruction = sys
    else output.systemInstruction = sys as GeminiContent
  }
  return { output: detach(output), lost }
}

function textOf(content: Message['content']): string {
  if (content === undefined) return ''
  if (typeof content === 'string') return content
  return content
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('\n')
}

function turnOf(role: 'user' | 'model', data: Json, parts: Json[]): Json {
  return {
    ...(!data.noRole && { role }),
    parts,
    ...((data.extra as Json | undefined) ?? {}),
  }
}

function encodePlain(content: Message['content']): Json[] {
  if (content === undefined) return []
  if (typeof content === 'string') return [{ text: content }]
  return content.map(encodePart)
}

function encodePart(p: ContentPart): Json {
  const data = meta(p)
  if (data.part) return data.part as Json
  const { blobExtra, fileExtra, noMime, ...extra } = data
  if (p.type === 'text') return { text: p.text, ...extra }
  if (p.data !== undefined)
    return {
      inlineData: {
        mimeType: p.mediaType ?? (p.type === 'image' ? 'image/png' : 'application/octet-stream'),
        data: p.data,
        ...((blobExtra as Json | undefined) ?? {}),
      },
      ...extra,
    }
  if (p.url?.startsWith('data:')) {
    const comma = p.url.indexOf(',')
    const mime = /^data:([^;,]+)/.exec(p.url)?.[1] ?? 'image/png'
    return { inlineData: { mimeType: mime, data: p.url.slice(comma + 1) }, ...extra }
  }
  return {
    fileData: {
      ...(!noMime && {
        mimeType: p.mediaType ?? (p.type === 'image' ? 'image/png' : 'application/pdf'),
      }),
      fileUri: p.url ?? '',
      ...((fileExtra as Json | undefined) ?? {}),
    },
    ...extra,
  }
}

function encodeCall(c: ToolCall): Json {
  const data = meta(c)
  const fc: Json = { name: c.name }
  if (!data.idAbsent) fc.id = c.id
  const args = parseArguments(c.arguments, asObject)
  if (!(data.argsAbsent && args && typeof args === 'object' && Object.keys(args).length === 0))
    fc.args = args
  // Field order as the API writes it: id, name, args, then the rest.
  const ordered: Json = {}
  if (fc.id !== undefined) ordered.id = fc.id
  ordered.name = fc.name
  if (fc.args !== undefined) ordered.args = fc.args
  // Spread, not assign: a kept key such as `__proto__` stays data, never a prototype.
  return {
    functionCall: { ...ordered, ...((data.callExtra as Json | undefined) ?? {}) },
    ...((data.partExtra as Json | undefined) ?? {}),
  }
}

function encodeModel(m: AssistantMessage): Json[] {
  const data = meta(m)
  const parts: ContentPart[] =
    typeof m.content === 'string'
      ? m.content
        ? [{ type: 'text', text: m.content }]
        : []
      : [...(m.content ?? [])]
  const calls = [...(m.toolCalls ?? [])]
  const out: Json[] = []
  for (const slot of (data.layout as Slot[] | undefined) ?? []) {
    if (slot.t === 'thought') {
      // A dropped thought is not sent; a kept one goes back as it came, signature and all,
      // but for an empty one without a signature, which Gemini refuses and which says nothing.
      const empty = !slot.part.text && slot.part.thoughtSignature === undefined
      if (m.thought !== undefined && !empty) out.push(slot.part)
    } else if (slot.t === 'call') {
      const c = calls.shift()
      if (c) out.push(encodeCall(c))
    } else {
      const p = parts.shift()
      if (p) out.push(encodePart(p))
    }
  }
  for (const p of parts) out.push(encodePart(p))
  for (const c of calls) out.push(encodeCall(c))
  return out
}

function encodeResponse(
  m: ToolMessage,
  call: { name: string; idAbsent: boolean } | undefined,
): Json {
  const data = meta(m)
  // Text goes in `response`; media (an image a tool returned) in the response's own `parts`.
  const content = typeof m.content === 'string' ? [] : m.content
  const media = content.filter((p) => p.type !== 'text' || meta(p).part !== undefined)
  const text =
    typeof m.content === 'string'
      ? m.content
      : content
          .filter((p): p is TextPart => p.type === 'text' && meta(p).part === undefined)
          .map((p) => p.text)
          .join('\n')
  let response: unknown
  if (data.form === 'json') {
    try {
      response = JSON.parse(text)
    } catch {
      response = { output: text }
    }
    if (!response || typeof response !== 'object' || Array.isArray(response))
      response = { output: response }
  } else if (data.form === 'error' || (data.form === undefined && m.isError))
    response = { error: text }
  else response = { output: text }
  const fr: Json = {}
  const idAbsent = data.form !== undefined ? data.idAbsent : call?.idAbsent
  if (!idAbsent) fr.id = m.toolCallId
  fr.name = m.toolName ?? call?.name ?? ''
  if (!data.responseAbsent) fr.response = response
  if (media.length) fr.parts = media.map(encodePart)
  return {
    functionResponse: { ...fr, ...((data.responseExtra as Json | undefined) ?? {}) },
    ...((data.partExtra as Json | undefined) ?? {}),
  }
}

/** Gemini's `args` is an object: anything else is wrapped. */
function asObject(v: unknown): unknown {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : { value: v }
}
