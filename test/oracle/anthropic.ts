// Anthropic Messages API request rules, as published in its API reference and tool-use guide
// and as its 400 errors state them. Imports nothing from src/.
//
// - "messages: at least one message is required"
// - roles are "user" and "assistant"; the first message is the user's
// - "all messages must have non-empty content except for the optional final assistant message"
// - "text content blocks must be non-empty" / "must contain non-whitespace text"
// - tool_use ids match ^[a-zA-Z0-9_-]+$ and are unique ("tool_use ids must be unique")
// - every tool_use has its tool_result in the next (user) message, and a tool_result answers
//   a tool_use of the assistant message just before it ("tool_use ids were found without
//   tool_result blocks immediately after"; "unexpected tool_use_id found in tool_result blocks")
// - in a user message, tool_result blocks come before any other block
// - system is a string or a list of non-empty text blocks
// - a search_result block (user content, tool_result content) has a source and a title
//   (strings) and content: a list of text blocks
// - server tools: a server_tool_use block (id srvtoolu_...) and its result block
//   (web_search_tool_result, web_fetch_tool_result, code_execution_tool_result, ...) sit in the
//   same assistant message, the result after the use it names, each use answered once

import { isObject, type Json, loneSurrogates } from './common.js'

const TOOL_ID = /^[a-zA-Z0-9_-]+$/
const SERVER_ID = /^srvtoolu_[a-zA-Z0-9_]+$/
const SERVER_RESULTS = [
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
]
const NON_SPACE = /\S/
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp']

/** What Anthropic would refuse in this request body; empty when it is accepted. */
export function anthropicViolations(request: unknown): string[] {
  const out: string[] = []
  if (!isObject(request)) return ['request: not an object']
  loneSurrogates(request, 'request', out)
  const { system, messages } = request
  if (system !== undefined) {
    if (Array.isArray(system)) {
      system.forEach((b, k) => {
        if (!isObject(b) || b.type !== 'text') out.push(`system.${k}: not a text block`)
        else if (typeof b.text !== 'string' || !NON_SPACE.test(b.text))
          out.push(`system.${k}: text block is empty or white space`)
      })
    } else if (typeof system !== 'string') out.push('system: neither a string nor text blocks')
  }
  if (!Array.isArray(messages) || messages.length === 0)
    return [...out, 'messages: at least one message is required']
  const seenIds = new Set<string>()
  let pending: Set<string> | undefined
  messages.forEach((m, i) => {
    const at = `messages.${i}`
    if (!isObject(m)) {
      out.push(`${at}: not an object`)
      return
    }
    if (m.role !== 'user' && m.role !== 'assistant') {
      out.push(`${at}.role: ${JSON.stringify(m.role)} is not user or assistant`)
      return
    }
    if (i === 0 && m.role !== 'user') out.push(`${at}: the first message must be the user's`)
    const last = i === messages.length - 1
    const blocks: Json[] =
      typeof m.content === 'string'
        ? NON_SPACE.test(m.content)
          ? [{ type: 'text', text: m.content }]
          : []
        : Array.isArray(m.content)
          ? (m.content as Json[])
          : []
    if (typeof m.content !== 'string' && !Array.isArray(m.content))
      out.push(`${at}.content: neither a string nor blocks`)
    if (blocks.length === 0 && !(last && m.role === 'assistant'))
      out.push(`${at}: empty content (only a final assistant message may be empty)`)
    // The results the previous assistant message is owed.
    const owed = pending
    pending = undefined
    if (owed && m.role !== 'user') out.push(`${at}: tool_use without tool_result right after it`)
    const answered = new Set<string>()
    let otherSeen = false
    // Server tool uses of this message, and which of them have their result block.
    const serverUses = new Set<string>()
    const serverDone = new Set<string>()
    blocks.forEach((b, k) => {
      const bat = `${at}.content.${k}`
      if (!isObject(b)) {
        out.push(`${bat}: not a block`)
        return
      }
      switch (b.type) {
        case 'text':
          if (typeof b.text !== 'string' || !NON_SPACE.test(b.text))
            out.push(`${bat}: text block is empty or white space`)
          otherSeen = true
          break
        case 'image': {
          const src = b.source
          if (!isObject(src)) out.push(`${bat}: image without source`)
          else if (src.type === 'base64') {
            if (!IMAGE_TYPES.includes(String(src.media_type)))
              out.push(`${bat}: image media_type ${String(src.media_type)}`)
            if (typeof src.data !== 'string' || src.data === '')
              out.push(`${bat}: image without data`)
          } else if (src.type !== 'url' || typeof src.url !== 'string')
            out.push(`${bat}: image source neither base64 nor url`)
          otherSeen = true
          break
        }
        case 'document':
          otherSeen = true
          break
        case 'search_result':
          // Search results (user content and tool results): source and title strings, text content.
          searchResultViolations(b, bat, out)
          otherSeen = true
          break
        case 'tool_use':
          if (m.role !== 'assistant') out.push(`${bat}: tool_use outside an assistant message`)
          if (typeof b.id !== 'string' || !TOOL_ID.test(b.id))
            out.push(`${bat}: tool_use id ${JSON.stringify(b.id)} does not match ${TOOL_ID}`)
          else if (seenIds.has(b.id)) out.push(`${bat}: tool_use id ${b.id} is not unique`)
          else {
            seenIds.add(b.id)
            pending ??= new Set()
            pending.add(b.id)
          }
          if (typeof b.name !== 'string' || b.name === '') out.push(`${bat}: tool_use without name`)
          if (!isObject(b.input)) out.push(`${bat}: tool_use input is not an object`)
          break
        case 'tool_result':
          if (m.role !== 'user') out.push(`${bat}: tool_result outside a user message`)
          if (otherSeen) out.push(`${bat}: tool_result after another block (results come first)`)
          if (typeof b.tool_use_id !== 'string' || !owed?.has(b.tool_use_id))
            out.push(
              `${bat}: tool_result for ${JSON.stringify(b.tool_use_id)}, not a tool_use of the message before`,
            )
          else if (answered.has(b.tool_use_id))
            out.push(`${bat}: a second tool_result for ${b.tool_use_id}`)
          else answered.add(b.tool_use_id)
          if (Array.isArray(b.content))
            (b.content as Json[]).forEach((c, j) => {
              if (
                isObject(c) &&
                c.type === 'text' &&
                !(typeof c.text === 'string' && NON_SPACE.test(c.text))
              )
                out.push(`${bat}.content.${j}: text block is empty or white space`)
              if (isObject(c) && c.type === 'search_result')
                searchResultViolations(c, `${bat}.content.${j}`, out)
            })
          break
        case 'thinking':
          if (m.role !== 'assistant') out.push(`${bat}: thinking outside an assistant message`)
          if (typeof b.signature !== 'string') out.push(`${bat}: thinking without signature`)
          break
        case 'server_tool_use':
          if (m.role !== 'assistant')
            out.push(`${bat}: server_tool_use outside an assistant message`)
          if (typeof b.id !== 'string' || !SERVER_ID.test(b.id))
            out.push(
              `${bat}: server_tool_use id ${JSON.stringify(b.id)} does not match ${SERVER_ID}`,
            )
          else if (seenIds.has(b.id)) out.push(`${bat}: server_tool_use id ${b.id} is not unique`)
          else {
            seenIds.add(b.id)
            serverUses.add(b.id)
          }
          if (typeof b.name !== 'string' || b.name === '')
            out.push(`${bat}: server_tool_use without name`)
          if (!isObject(b.input)) out.push(`${bat}: server_tool_use input is not an object`)
          break
        case 'redacted_thinking':
          if (m.role !== 'assistant')
            out.push(`${bat}: redacted_thinking outside an assistant message`)
          break
        default:
          if (SERVER_RESULTS.includes(String(b.type))) {
            if (m.role !== 'assistant') out.push(`${bat}: ${b.type} outside an assistant message`)
            const use = String(b.tool_use_id)
            if (!serverUses.has(use))
              out.push(`${bat}: ${b.type} for ${use}, not a server_tool_use before it here`)
            else if (serverDone.has(use)) out.push(`${bat}: a second result for ${use}`)
            else serverDone.add(use)
            if (b.content === undefined) out.push(`${bat}: ${b.type} without content`)
            break
          }
          out.push(`${bat}: unknown block type ${JSON.stringify(b.type)}`)
      }
    })
    if (owed)
      for (const id of owed)
        if (!answered.has(id)) out.push(`${at}: no tool_result for tool_use ${id}`)
  })
  if (pending) out.push('messages: the last message has tool_use blocks without results')
  // The vision guide: 100 images in one API request (on every model); the Messages API: 32 MB a request.
  const images = countImages(messages)
  if (images > 100) out.push(`messages: ${images} images, over the 100 one request may carry`)
  const size = JSON.stringify(request).length
  if (size > 32_000_000) out.push(`request: ${size} bytes, over the 32 MB a request may be`)
  // The PDF support guide: 100 pages in one request.
  const pages = countPdfPages(messages)
  if (pages > 100) out.push(`messages: ${pages} PDF pages, over the 100 one request may carry`)
  return out
}

/**
 * Pages of the base64 PDF documents anywhere in `value`: each PDF's leaf page dictionaries
 * (`/Type/Page` with no `s`), read from its decoded bytes.
 */
function countPdfPages(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countPdfPages(v), 0)
  if (!isObject(value)) return 0
  const src = value.source
  if (
    value.type === 'document' &&
    isObject(src) &&
    src.type === 'base64' &&
    src.media_type === 'application/pdf' &&
    typeof src.data === 'string'
  ) {
    const bytes = Buffer.from(src.data, 'base64').toString('latin1')
    return bytes.split(/\/Type\s*\/Page\b/).length - 1
  }
  let n = 0
  for (const v of Object.values(value)) if (v && typeof v === 'object') n += countPdfPages(v)
  return n
}

/** Image blocks anywhere in `value` (tool results hold them too). */
function countImages(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countImages(v), 0)
  if (!isObject(value)) return 0
  let n = value.type === 'image' ? 1 : 0
  for (const v of Object.values(value)) if (v && typeof v === 'object') n += countImages(v)
  return n
}

/** A `search_result` block: `source` and `title` strings, `content` a list of non-empty text blocks. */
function searchResultViolations(b: Json, at: string, out: string[]): void {
  if (typeof b.source !== 'string') out.push(`${at}: search_result source is not a string`)
  if (typeof b.title !== 'string') out.push(`${at}: search_result title is not a string`)
  if (!Array.isArray(b.content) || b.content.length === 0)
    out.push(`${at}: search_result without content`)
  else
    (b.content as unknown[]).forEach((c, j) => {
      if (
        !isObject(c) ||
        c.type !== 'text' ||
        typeof c.text !== 'string' ||
        !NON_SPACE.test(c.text)
      )
        out.push(`${at}.content.${j}: search_result content is not a non-empty text block`)
    })
}
