/** Reading a Responses API request or item list into messages. */
import { InvalidInputError } from '../../errors.js'
import type { OpenAIResponsesInput, ReaderInput } from '../../messages/input.js'
import type { ContentPart, Message, ToolMessage } from '../../messages/message.js'
import { describeValue } from '../../options-check.js'
import { describe, fail, isJson, type Json, refuseDeep } from '../codec-kit.js'
import { nonEmpty, Run } from './model-run.js'
import { CALL_OUTPUT, withMeta } from './wire.js'

/**
 * Whether an item is one of the model's (reasoning, an assistant message, a call, a built-in
 * tool item): consecutive model items are one run, decoded as one assistant message.
 */
export function isModelItem(item: unknown): boolean {
  if (!isJson(item) || Array.isArray(item)) return false
  const { type, role, call_id: callId } = item
  if (type === undefined || type === 'message') return role === 'assistant'
  if (typeof type !== 'string' || type === 'compaction') return false
  if (type === 'function_call_output' || type === 'custom_tool_call_output') return false
  return !(CALL_OUTPUT.test(type) && typeof callId === 'string')
}

/**
 * Decodes an OpenAI Responses conversation: a request (`{ instructions, input }`, `input` a
 * string or a list of items) or a bare item list. Each run of model items (reasoning,
 * assistant messages, calls, built-in tool items) becomes one assistant message, so a
 * reasoning item always travels with what follows it; ids, `encrypted_content`, statuses
 * and unknown fields are kept for the way back. Throws `InvalidInputError` naming the item.
 */
export function fromOpenAIResponses<const T>(
  input: ReaderInput<T, OpenAIResponsesInput>,
): Message[] {
  return readOpenAIResponses(input)
}

/** `fromOpenAIResponses` for a value of any type (a caller generic over the SDK's item type). */
export function readOpenAIResponses(input: unknown): Message[] {
  refuseDeep(input)
  const out: Message[] = []
  let items: unknown
  if (Array.isArray(input)) items = input
  else if (isJson(input) && 'input' in input) {
    const req = input
    if (req.instructions !== undefined && req.instructions !== null) {
      if (typeof req.instructions !== 'string')
        fail(-1, 'instructions', `expected a string, got ${describe(req.instructions)}`)
      out.push(withMeta({ role: 'system', content: req.instructions }, { instructions: true }))
    }
    items = req.input
    if (typeof items === 'string') {
      out.push(withMeta({ role: 'user', content: items }, { inputString: true }))
      return out
    }
  }
  if (!Array.isArray(items))
    throw new InvalidInputError('expected a list of items or an object with an "input" list', {
      field: 'input',
    })
  const names = new Map<string, string>()
  let run: Run | undefined
  const close = () => {
    if (run) out.push(run.message())
    run = undefined
  }
  items.forEach((raw, i) => {
    if (!isJson(raw) || Array.isArray(raw))
      fail(i, 'item', `expected an object, got ${describe(raw)}`)
    const item = raw
    const type = item.type
    if (type !== undefined && typeof type !== 'string')
      fail(i, 'type', `expected a string, got ${describe(type)}`)
    if (type === undefined || type === 'message') {
      const role = item.role
      if (role === 'assistant') {
        run ??= new Run()
        run.addMessage(item, i)
        return
      }
      if (role !== 'user' && role !== 'system' && role !== 'developer')
        fail(i, 'role', `expected user, assistant, system or developer, got ${describeValue(role)}`)
      close()
      // `pinned: true` is the library's (sent whenever the system prompt is), never the wire's.
      const { role: _r, content, pinned, ...extra } = item
      if (pinned !== undefined && typeof pinned !== 'boolean') extra.pinned = pinned
      const data: Json = Object.keys(extra).length ? { extra } : {}
      if (role === 'developer') data.role = 'developer'
      out.push(
        withMeta(
          {
            role: role === 'user' ? 'user' : 'system',
            content: decodeInput(content, i, 'content'),
            ...(pinned === true && { pinned: true }),
          },
          data,
        ),
      )
      return
    }
    if (type === 'compaction') {
      close()
      if (typeof item.encrypted_content !== 'string')
        fail(i, 'encrypted_content', `expected a string, got ${describe(item.encrypted_content)}`)
      // Stands for the history it compacted: a system message, counted as its encrypted text.
      out.push(
        withMeta(
          { role: 'system', content: [{ type: 'text', text: item.encrypted_content }] },
          { item },
        ),
      )
      return
    }
    if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      close()
      out.push(decodeOutput(item, i, names))
      return
    }
    if (CALL_OUTPUT.test(type) && typeof item.call_id === 'string') {
      close()
      const content = typeof item.output === 'string' ? item.output : JSON.stringify(item.output)
      out.push(
        withMeta(
          {
            role: 'tool',
            toolCallId: nonEmpty(item.call_id, i, 'call_id'),
            content,
            ...(names.has(item.call_id) && { toolName: names.get(item.call_id) }),
          },
          { item },
        ),
      )
      return
    }
    run ??= new Run()
    if (type === 'reasoning') run.addReasoning(item, i)
    else if (
      type === 'function_call' ||
      type === 'custom_tool_call' ||
      typeof item.call_id === 'string'
    )
      run.addCall(item, i, names)
    else run.addOpaque(item)
  })
  close()
  return out
}

function decodeInput(content: unknown, i: number, field: string): string | ContentPart[] {
  if (typeof content === 'string') return content
  if (!Array.isArray(content))
    fail(i, field, `expected a string or a list of parts, got ${describe(content)}`)
  return content.map((raw, k): ContentPart => {
    const f = `${field}.${k}`
    if (!isJson(raw)) fail(i, f, `expected an object, got ${describe(raw)}`)
    const p = raw
    switch (p.type) {
      case 'input_text':
      case 'output_text': {
        if (typeof p.text !== 'string')
          fail(i, `${f}.text`, `expected a string, got ${describe(p.text)}`)
        const { type, text, ...extra } = p
        return withMeta(
          { type: 'text', text },
          { ...(type !== 'input_text' && { type }), ...extra },
        )
      }
      case 'input_image': {
        const { type: _t, image_url, detail, ...extra } = p
        if (image_url !== undefined && image_url !== null && typeof image_url !== 'string')
          fail(i, `${f}.image_url`, `expected a string, got ${describe(image_url)}`)
        const part: ContentPart = { type: 'image' }
        if (typeof image_url === 'string') part.url = image_url
        if (detail === 'low' || detail === 'high' || detail === 'auto') part.detail = detail
        else if (detail !== undefined) extra.detail = detail
        if (image_url === null) extra.image_url = null
        return withMeta(part, extra)
      }
      case 'input_file': {
        const { type: _t, file_data, filename, file_url, ...extra } = p
        const part: ContentPart = { type: 'file' }
        if (typeof file_data === 'string') {
          const m = /^data:([^;,]+)[^,]*,/.exec(file_data)
          const mediaType = m?.[1]
          if (m && mediaType !== undefined) {
            part.data = file_data.slice(m[0].length)
            part.mediaType = mediaType
            extra.dataUrl = file_data.slice(0, m[0].length)
          } else part.data = file_data
        }
        if (typeof filename === 'string') part.filename = filename
        if (typeof file_url === 'string') part.url = file_url
        return withMeta(part, extra)
      }
      default:
        return withMeta({ type: 'text', text: JSON.stringify(p) }, { part: p })
    }
  })
}

function decodeOutput(item: Json, i: number, names: Map<string, string>): ToolMessage {
  const { type, call_id, output, ...extra } = item
  const toolCallId = nonEmpty(call_id, i, 'call_id')
  const name = names.get(toolCallId)
  return withMeta(
    {
      role: 'tool',
      toolCallId,
      content: decodeInput(output, i, 'output'),
      ...(name !== undefined && { toolName: name }),
    },
    {
      ...(type === 'custom_tool_call_output' && { custom: true }),
      ...(Object.keys(extra).length && { extra }),
    },
  )
}
