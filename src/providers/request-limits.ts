import type { ContentPart, Message } from '../messages/message.js'
import type { RequestLimits } from './types.js'

/** Base64 characters of an inline part (its `data`, or a `data:` URL), 0 for one sent by URL. */
function inlineChars(p: ContentPart): number {
  if (p.type === 'text') return 0
  if (p.data !== undefined) return p.data.length
  if (p.url?.startsWith('data:')) return p.url.length - p.url.indexOf(',') - 1
  return 0
}

/** An image's bytes as the API counts them: its base64 data decoded (0 for one sent by URL). */
const decodedBytes = (chars: number) => Math.floor((chars * 3) / 4)

/** Pages read once per part object: a history handed again costs no second decoding. */
const pagesRead = new WeakMap<ContentPart, number>()

/**
 * The pages of a PDF sent inline: its `/Type /Page` objects (not `/Pages`, the tree's nodes).
 * A PDF whose objects sit in compressed object streams shows none, and counts 0: its bytes
 * still count against the inline limit. 0 for anything but an inline PDF.
 */
export function pdfPages(p: ContentPart): number {
  if (p.type !== 'file' || inlineChars(p) === 0) return 0
  const type = p.mediaType ?? (p.url?.startsWith('data:') ? p.url.slice(5, p.url.indexOf(';')) : '')
  if (type !== 'application/pdf') return 0
  const known = pagesRead.get(p)
  if (known !== undefined) return known
  const base64 = p.data ?? p.url?.slice(p.url.indexOf(',') + 1) ?? ''
  let pages = 0
  try {
    pages = atob(base64.replace(/\s+/g, '')).match(/\/Type\s*\/Page(?![A-Za-z])/g)?.length ?? 0
  } catch {
    // Not base64: the provider refuses it for what it is, not for its pages.
  }
  pagesRead.set(p, pages)
  return pages
}

/**
 * The images and files over the request's limits, by message index, then part index: the
 * oldest go first, until what is left is within every limit (the newest are what the reply
 * is about). Empty when everything fits, or when there are no limits. Linear in the parts.
 */
export function overRequestLimits(
  messages: readonly Message[],
  limits: RequestLimits | undefined,
): Map<number, number[]> {
  const out = new Map<number, number[]>()
  if (!limits) return out
  const { images: maxImages = Infinity, imageBytes: maxBytes = Infinity } = limits
  const maxInline = limits.inlineBytes ?? Infinity
  const maxPages = limits.pdfPages ?? Infinity
  const media: [at: number, part: number, image: boolean, chars: number, pages: number][] = []
  let images = 0
  let bytes = 0
  let inline = 0
  let pages = 0
  messages.forEach((m, at) => {
    if (Array.isArray(m.content))
      m.content.forEach((p, part) => {
        if (p.type === 'text') return
        const chars = inlineChars(p)
        const image = p.type === 'image'
        const own = maxPages === Infinity ? 0 : pdfPages(p)
        media.push([at, part, image, chars, own])
        if (image) images++
        if (image) bytes += decodedBytes(chars)
        inline += chars
        pages += own
      })
  })
  for (const [at, part, image, chars, own] of media) {
    const imagesOver = images > maxImages || bytes > maxBytes
    const inlineOver = inline > maxInline
    const pagesOver = pages > maxPages
    if (!imagesOver && !inlineOver && !pagesOver) break
    // Only what is over goes: an image while images are, any inline part while inline data
    // is, a PDF while pages are.
    if (!((image && imagesOver) || (inlineOver && chars > 0) || (pagesOver && own > 0))) continue
    if (image) images--
    if (image) bytes -= decodedBytes(chars)
    inline -= chars
    pages -= own
    const list = out.get(at)
    if (list) list.push(part)
    else out.set(at, [part])
  }
  return out
}

/** The short text an image or file over the limits is sent as: the message keeps its place and its other parts. */
export function omittedMediaText(p: ContentPart, label: string): string {
  const what = p.type === 'file' ? `file${p.filename ? ` ${p.filename}` : ''}` : 'image'
  return `[${what} omitted: over ${label}'s limits for one request]`
}

/** `m` with the parts at `parts` replaced by their placeholder text. */
export function withoutMedia(m: Message, parts: readonly number[], label: string): Message {
  if (!Array.isArray(m.content)) return m
  const content = m.content.map(
    (p, k): ContentPart =>
      parts.includes(k) ? { type: 'text', text: omittedMediaText(p, label) } : p,
  )
  return { ...m, content }
}

/** What is over, in words, for `validate`: how many of the message's parts and which limits. */
export function describeLimits(limits: RequestLimits): string {
  const out: string[] = []
  if (limits.images !== undefined) out.push(`${limits.images} images`)
  if (limits.imageBytes !== undefined) out.push(`${limits.imageBytes / 1e6} MB of image data`)
  if (limits.inlineBytes !== undefined) out.push(`${limits.inlineBytes / 1e6} MB of inline data`)
  if (limits.pdfPages !== undefined) out.push(`${limits.pdfPages} PDF pages`)
  return out.join(', ')
}
