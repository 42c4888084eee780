/** Writing messages as a Responses API `input` list or request. */

import type { Message } from '../../messages/message.js'
import { requireOptions } from '../../options-check.js'
import {
  detach,
  fieldsOf,
  type Json,
  jsonField,
  type Loss,
  requireList,
  stringField,
} from '../codec-kit.js'
import type { ToOpenAIResponsesOptions } from '../types.js'
import { encodeAssistant } from './encode-assistant.js'
import { meta, OPENAI_RESPONSES, type ResponsesInputItem, type ResponsesRequest } from './wire.js'

/**
 * Encodes messages as a Responses API `input` list. Items decoded by `fromOpenAIResponses`
 * come back as they were. A reasoning item goes only where an item of its own follows it
 * (and, with `store: false`, only with its `encrypted_content`); where one is left out,
 * the ids of the items it produced are left out too, so the API does not ask for it. An
 * assistant's `refusal` goes as a refusal part of an output message. Reasoning text that
 * came from another format has no reasoning item to go back in and is not sent:
 * `encodeOpenAIResponses` lists it as lost, and `repair` (so `fit`) takes it out before
 * counting.
 */
export function toOpenAIResponses(
  messages: readonly Message[],
  options: ToOpenAIResponsesOptions = {},
): ResponsesInputItem[] {
  requireList(messages)
  requireOptions(options, 'toOpenAIResponses', ['ids', 'store'])
  return detach(encodeItems(messages, options, []).items)
}

/** `toOpenAIResponses` with what could not be sent, by input message. */
export function encodeOpenAIResponses(
  messages: readonly Message[],
  options: ToOpenAIResponsesOptions & { request?: boolean } = {},
): { output: ResponsesRequest | ResponsesInputItem[]; lost: Loss[] } {
  requireList(messages)
  requireOptions(options, 'encodeOpenAIResponses', ['ids', 'store', 'request'])
  const lost: Loss[] = []
  if (!options.request) return { output: detach(encodeItems(messages, options, lost).items), lost }
  const first = messages[0]
  let instructions: string | undefined
  let rest = messages
  if (
    first?.role === 'system' &&
    typeof first.content === 'string' &&
    (meta(first).instructions || !first.providerMetadata?.[OPENAI_RESPONSES])
  ) {
    instructions = first.content
    rest = messages.slice(1)
  }
  const only = rest[0]
  if (rest.length === 1 && only && meta(only).inputString && typeof only.content === 'string')
    return {
      output: { ...(instructions !== undefined && { instructions }), input: only.content as never },
      lost,
    }
  const { items } = encodeItems(rest, options, lost, instructions !== undefined ? 1 : 0)
  return {
    output: { ...(instructions !== undefined && { instructions }), input: detach(items) },
    lost,
  }
}

function encodeItems(
  messages: readonly Message[],
  options: ToOpenAIResponsesOptions,
  lost: Loss[],
  offset = 0,
): { items: ResponsesInputItem[] } {
  const items: Json[] = []
  const seen = new Set<string>()
  messages.forEach((m, k) => {
    const data = meta(m)
    if (m.role === 'assistant') {
      items.push(...encodeAssistant(m, options, seen, lost, k + offset))
      return
    }
    if (m.role === 'tool') {
      const item = jsonField(data, 'item')
      if (item) {
        items.push(item)
        return
      }
      const out: Json = {
        type: data.custom ? 'custom_tool_call_output' : 'function_call_output',
        call_id: m.toolCallId,
        output: encodeInput(m.content),
        ...fieldsOf(data.extra),
      }
      if (options.ids === 'omit') delete out.id
      items.push(out)
      return
    }
    const item = jsonField(data, 'item')
    if (item) {
      items.push(item)
      return
    }
    const role = m.role === 'system' ? (stringField(data, 'role') ?? 'system') : 'user'
    items.push({
      role,
      content: encodeInput(m.content),
      ...fieldsOf(data.extra),
    })
  })
  return { items: items as unknown as ResponsesInputItem[] }
}

function encodeInput(content: Message['content']): string | Json[] {
  if (content === undefined) return ''
  if (typeof content === 'string') return content
  return content.map((p) => {
    const data = meta(p)
    const whole = jsonField(data, 'part')
    if (whole) return whole
    if (p.type === 'text') {
      const { type, ...extra } = data
      return { type: typeof type === 'string' ? type : 'input_text', text: p.text, ...extra }
    }
    if (p.type === 'image') {
      const url =
        p.url ?? (p.data ? `data:${p.mediaType ?? 'image/png'};base64,${p.data}` : undefined)
      return {
        type: 'input_image',
        ...(url !== undefined && { image_url: url }),
        detail: p.detail ?? 'auto',
        ...data,
      }
    }
    const { dataUrl, ...extra } = data
    const out: Json = { type: 'input_file' }
    if (p.data !== undefined)
      out.file_data =
        typeof dataUrl === 'string'
          ? `${dataUrl}${p.data}`
          : p.mediaType
            ? `data:${p.mediaType};base64,${p.data}`
            : p.data
    if (p.filename !== undefined) out.filename = p.filename
    if (p.url !== undefined) out.file_url = p.url
    return { ...out, ...extra }
  })
}
