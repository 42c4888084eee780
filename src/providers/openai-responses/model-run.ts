/** A run of the model's items (reasoning, messages, calls) read as one assistant message. */

import type { AssistantMessage, ContentPart, ToolCall } from '../../messages/message.js'
import { describe, fail, isJson, isList, type Json } from '../codec-kit.js'
import { type Slot, withMeta } from './wire.js'

export function nonEmpty(v: unknown, i: number, field: string): string {
  if (typeof v !== 'string' || !v) fail(i, field, `expected a non-empty string, got ${describe(v)}`)
  return v
}

/** The model's items between two inputs: one assistant message. */
export class Run {
  private parts: ContentPart[] = []
  private calls: ToolCall[] = []
  private thoughts: string[] = []
  private layout: Slot[] = []
  private encryptedChars = 0
  private single: string | undefined

  addMessage(item: Json, i: number): void {
    const { role: _r, content, ...extra } = item
    if (typeof content === 'string') {
      this.single = this.layout.length === 0 ? content : undefined
      if (content) this.parts.push({ type: 'text', text: content })
      this.layout.push({ t: 'message', form: 'string', n: content ? 1 : 0, extra })
      return
    }
    if (!Array.isArray(content))
      fail(i, 'content', `expected a string or a list of parts, got ${describe(content)}`)
    this.single = undefined
    content.forEach((p, k) => {
      this.parts.push(decodeOutputPart(p, i, `content.${k}`))
    })
    this.layout.push({ t: 'message', form: 'parts', n: content.length, extra })
  }

  addReasoning(item: Json, i: number): void {
    if (typeof item.id !== 'string') fail(i, 'id', `expected a string, got ${describe(item.id)}`)
    if (!isList(item.summary)) fail(i, 'summary', `expected a list, got ${describe(item.summary)}`)
    const texts = item.summary.map((s, k) => {
      if (!isJson(s) || typeof s.text !== 'string')
        fail(
          i,
          `summary.${k}.text`,
          `expected a string, got ${describe(isJson(s) ? s.text : undefined)}`,
        )
      return s.text
    })
    this.thoughts.push(texts.join('\n\n'))
    if (typeof item.encrypted_content === 'string')
      this.encryptedChars += item.encrypted_content.length
    this.single = undefined
    this.layout.push({ t: 'reasoning', item })
  }

  addCall(item: Json, i: number, names: Map<string, string>): void {
    const id = nonEmpty(item.call_id, i, 'call_id')
    let call: ToolCall
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      const { type, call_id: _c, name, arguments: args, input, ...extra } = item
      if (typeof name !== 'string') fail(i, 'name', `expected a string, got ${describe(name)}`)
      const text = type === 'function_call' ? args : input
      if (typeof text !== 'string')
        fail(
          i,
          type === 'function_call' ? 'arguments' : 'input',
          `expected a string, got ${describe(text)}`,
        )
      call = withMeta(
        { id, name, arguments: text },
        {
          ...(type === 'custom_tool_call' && { custom: true }),
          ...(Object.keys(extra).length && { extra }),
        },
      )
    } else {
      // computer, shell and other client-run calls: kept whole, their action as the arguments.
      const { type, call_id: _c, id: _id, status: _s, ...rest } = item
      call = withMeta({ id, name: String(type), arguments: JSON.stringify(rest) }, { item })
    }
    names.set(id, call.name)
    this.calls.push(call)
    this.single = undefined
    this.layout.push({ t: 'call' })
  }

  addOpaque(item: Json): void {
    this.parts.push(withMeta({ type: 'text', text: JSON.stringify(item) }, { item }))
    this.single = undefined
    this.layout.push({ t: 'opaque' })
  }

  message(): AssistantMessage {
    const single = this.single
    const [only] = this.layout
    if (
      single &&
      this.layout.length === 1 &&
      only?.t === 'message' &&
      Object.keys(only.extra).length === 0
    )
      return { role: 'assistant', content: single }
    const out: AssistantMessage = { role: 'assistant', content: this.parts }
    if (this.calls.length) out.toolCalls = this.calls
    if (this.thoughts.length) out.thought = this.thoughts.join('\n\n')
    return withMeta(out, {
      layout: this.layout,
      ...(this.encryptedChars && { encryptedChars: this.encryptedChars }),
    })
  }
}

function decodeOutputPart(raw: unknown, i: number, field: string): ContentPart {
  if (!isJson(raw)) fail(i, field, `expected an object, got ${describe(raw)}`)
  const p = raw
  if (p.type === 'output_text' || p.type === 'input_text' || p.type === 'text') {
    if (typeof p.text !== 'string')
      fail(i, `${field}.text`, `expected a string, got ${describe(p.text)}`)
    const { type, text, ...extra } = p
    return withMeta({ type: 'text', text }, { ...(type !== 'output_text' && { type }), ...extra })
  }
  if (p.type === 'refusal') {
    if (typeof p.refusal !== 'string')
      fail(i, `${field}.refusal`, `expected a string, got ${describe(p.refusal)}`)
    const { type: _t, refusal, ...extra } = p
    return withMeta({ type: 'text', text: refusal }, { type: 'refusal', ...extra })
  }
  return withMeta({ type: 'text', text: JSON.stringify(p) }, { part: p })
}
