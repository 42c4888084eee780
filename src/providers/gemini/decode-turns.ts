/** Reading one Gemini turn: a model turn as one assistant message, a user turn as its messages. */
import type {
  AssistantMessage,
  ContentPart,
  Message,
  ToolCall,
  ToolMessage,
} from '../../messages/message.js'
import { describe, fail, isJson, isList, type Json } from '../codec-kit.js'
import { meta, type Slot, withMeta } from './wire.js'

/** A text or media part: canonical content, its other fields kept. */
export function decodePlainPart(raw: unknown, i: number, field: string): ContentPart {
  if (!isJson(raw)) fail(i, field, `expected an object, got ${describe(raw)}`)
  const p = raw
  if (typeof p.text === 'string' && !p.thought) {
    const { text, ...extra } = p
    return withMeta({ type: 'text', text }, extra)
  }
  const blob = p.inlineData
  if (isJson(blob) && typeof blob.data === 'string') {
    const { inlineData: _b, ...extra } = p
    const { data, mimeType, ...blobExtra } = blob
    const mediaType = typeof mimeType === 'string' ? mimeType : 'application/octet-stream'
    const part: ContentPart = mediaType.startsWith('image/')
      ? { type: 'image', data, mediaType }
      : { type: 'file', data, mediaType }
    return withMeta(part, { ...extra, ...(Object.keys(blobExtra).length && { blobExtra }) })
  }
  const file = p.fileData
  if (isJson(file) && typeof file.fileUri === 'string') {
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

export function decodeModel(parts: Json[], i: number, turn: Json): AssistantMessage {
  const content: ContentPart[] = []
  const calls: ToolCall[] = []
  const thoughts: string[] = []
  const layout: Slot[] = []
  parts.forEach((p, k) => {
    if (p.functionCall !== undefined) {
      const fc = p.functionCall
      if (!isJson(fc)) fail(i, `parts.${k}.functionCall`, `expected an object, got ${describe(fc)}`)
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
            id: id ?? `gemini_${i}_${k}`,
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
      thoughts.push(p.text ?? '')
      layout.push({ t: 'thought', part: p })
    } else {
      const part = decodePlainPart(p, i, `parts.${k}`)
      content.push(part)
      layout.push(part.type === 'text' && !meta(part).part ? { t: 'text' } : { t: 'other' })
    }
  })
  const only = content.length === 1 ? content[0] : undefined
  const plain =
    layout.length === 1 &&
    only?.type === 'text' &&
    only.text !== '' &&
    !only.providerMetadata &&
    !turn.extra &&
    !turn.noRole
  if (plain) return withMeta({ role: 'assistant', content: only.text }, { turn: i })
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
    while (q.next < q.calls.length && q.calls[q.next]?.used) q.next++
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

export function decodeUser(
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
    const fr = p.functionResponse
    if (!isJson(fr))
      fail(i, `parts.${k}.functionResponse`, `expected an object, got ${describe(fr)}`)
    const { functionResponse: _fr, ...partExtra } = p
    const { id, name, response, ...responseExtra } = fr
    // Media beside the JSON (an image a tool returned): content parts after the response's text.
    const media: ContentPart[] = []
    if (isList(responseExtra.parts) && responseExtra.parts.length > 0) {
      responseExtra.parts.forEach((q, n) => {
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
    let callId = id
    if (callId === undefined) callId = open.takeName(name) ?? `gemini_orphan_${i}_${k}`
    else open.takeId(callId)
    const r = isJson(response) ? response : {}
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
    const only = content.length === 1 ? content[0] : undefined
    const plain =
      only?.type === 'text' &&
      only.text !== '' &&
      !only.providerMetadata &&
      !turn.extra &&
      !turn.noRole &&
      responses === 0
    out.push(
      plain
        ? withMeta({ role: 'user', content: only.text }, { turn: i })
        : withMeta({ role: 'user', content }, turn),
    )
  }
  return out
}
