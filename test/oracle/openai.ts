// OpenAI Chat Completions request rules for `messages`, as published in its API reference
// (ChatCompletionRequestMessage and its variants) and as its 400 errors state them.
// Imports nothing from src/.
//
// - roles: system, developer, user, assistant, tool (and the legacy function)
// - system/developer/user/tool content is required: a string or a list of parts; system and
//   developer parts are text only ("For system messages, only type `text` is supported"), and
//   so are tool parts (ChatCompletionRequestToolMessageContentPart is the text part alone)
// - assistant content is "required unless tool_calls or function_call is specified"
// - tool_calls: { id, type: "function", function: { name, arguments: string } }, ids distinct
// - "messages with role 'tool' must be a response to a preceding message with 'tool_calls'"
// - "An assistant message with 'tool_calls' must be followed by tool messages responding to
//   each 'tool_call_id'"

import { isObject, type Json, loneSurrogates } from './common.js'

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function']
const USER_PARTS = ['text', 'image_url', 'input_audio', 'file']

/** What OpenAI would refuse in this list of chat messages; empty when it is accepted. */
export function openAIChatViolations(messages: unknown): string[] {
  const out: string[] = []
  if (!Array.isArray(messages) || messages.length === 0)
    return ['messages: must be a non-empty list']
  loneSurrogates(messages, 'messages', out)
  // Calls of the last assistant message still waiting for their tool messages.
  let owed: Set<string> | undefined
  messages.forEach((m, i) => {
    const at = `messages.${i}`
    if (!isObject(m) || typeof m.role !== 'string' || !ROLES.includes(m.role)) {
      out.push(`${at}: unknown role ${JSON.stringify(isObject(m) ? m.role : m)}`)
      return
    }
    if (m.role !== 'tool' && owed && owed.size > 0)
      out.push(`${at}: tool calls ${[...owed].join(', ')} have no tool message before this one`)
    if (m.role !== 'tool') owed = undefined
    switch (m.role) {
      case 'system':
      case 'developer':
        textContent(m.content, `${at}.content`, out)
        break
      case 'user':
        if (typeof m.content === 'string') break
        if (!Array.isArray(m.content) || m.content.length === 0) {
          out.push(`${at}.content: required (a string or a non-empty list of parts)`)
          break
        }
        ;(m.content as Json[]).forEach((p, k) => {
          if (!isObject(p) || !USER_PARTS.includes(String(p.type)))
            out.push(`${at}.content.${k}: not a user content part`)
          else if (p.type === 'text' && typeof p.text !== 'string')
            out.push(`${at}.content.${k}: text part without text`)
        })
        break
      case 'assistant': {
        const calls = m.tool_calls
        const hasCalls = Array.isArray(calls) && calls.length > 0
        const hasFunction = isObject(m.function_call)
        const content = m.content
        const hasContent =
          (typeof content === 'string' && content.length > 0) ||
          (Array.isArray(content) && content.length > 0)
        if (!hasContent && !hasCalls && !hasFunction)
          out.push(
            `${at}: assistant content is required unless tool_calls or function_call is given`,
          )
        if (content !== undefined && content !== null && typeof content !== 'string') {
          if (!Array.isArray(content)) out.push(`${at}.content: neither a string, a list nor null`)
          else
            (content as Json[]).forEach((p, k) => {
              if (!isObject(p) || (p.type !== 'text' && p.type !== 'refusal'))
                out.push(`${at}.content.${k}: assistant parts are text or refusal`)
            })
        }
        if (calls !== undefined && !Array.isArray(calls)) out.push(`${at}.tool_calls: not a list`)
        if (hasCalls) {
          owed = new Set()
          ;(calls as Json[]).forEach((c, k) => {
            const cat = `${at}.tool_calls.${k}`
            if (!isObject(c) || typeof c.id !== 'string' || c.id === '') {
              out.push(`${cat}: call without id`)
              return
            }
            if (c.type !== 'function') out.push(`${cat}: type must be "function"`)
            const fn = c.function
            if (!isObject(fn) || typeof fn.name !== 'string' || typeof fn.arguments !== 'string')
              out.push(`${cat}: function needs a name and string arguments`)
            if (owed?.has(c.id)) out.push(`${cat}: id ${c.id} used twice in one message`)
            owed?.add(c.id)
          })
        }
        break
      }
      case 'tool':
        if (typeof m.tool_call_id !== 'string' || !owed?.has(m.tool_call_id))
          out.push(
            `${at}: tool message for ${JSON.stringify(m.tool_call_id)} does not answer a call of the assistant message before it`,
          )
        else owed.delete(m.tool_call_id)
        textContent(m.content, `${at}.content`, out)
        break
      case 'function':
        if (typeof m.name !== 'string') out.push(`${at}: function message without name`)
        break
    }
  })
  if (owed && owed.size > 0)
    out.push(`messages: tool calls ${[...owed].join(', ')} have no tool message`)
  return out
}

/** System, developer and tool content: a string or a list of text parts. */
function textContent(content: unknown, at: string, out: string[]): void {
  if (typeof content === 'string') return
  if (!Array.isArray(content)) {
    out.push(`${at}: required (a string or a list of text parts)`)
    return
  }
  ;(content as Json[]).forEach((p, k) => {
    if (!isObject(p) || p.type !== 'text' || typeof p.text !== 'string')
      out.push(`${at}.${k}: only text parts are allowed here`)
  })
}
