/** Reading a message's content parts, and the typed errors reading raises. */
import { InvalidInputError } from '../../errors.js'
import type { ContentPart } from '../../messages/message.js'
import { describeValue } from '../../options-check.js'
import { describe, isJson } from '../codec-kit.js'
import { type Meta, OPENAI_CHAT } from './wire.js'

export function fail(index: number, field: string, detail: string): never {
  throw new InvalidInputError(detail, { index, field })
}

/** A string field; with `optional`, absent (undefined) is taken too. */
export function str(v: unknown, index: number, field: string): string
export function str(v: unknown, index: number, field: string, optional: true): string | undefined
export function str(
  v: unknown,
  index: number,
  field: string,
  optional = false,
): string | undefined {
  if (v === undefined && optional) return undefined
  if (typeof v !== 'string') fail(index, field, `expected a string, got ${describe(v)}`)
  return v
}

export function decodeContent(
  v: unknown,
  i: number,
  meta: Meta,
): string | ContentPart[] | undefined {
  if (typeof v === 'string') return v
  if (v === undefined) {
    meta.contentAbsent = true
    return undefined
  }
  if (v === null) {
    meta.contentNull = true
    return undefined
  }
  if (!Array.isArray(v))
    fail(i, 'content', `expected a string or a list of parts, got ${describe(v)}`)
  return v.map((p, k) => decodePart(p, i, `content.${k}`))
}

function decodePart(raw: unknown, i: number, field: string): ContentPart {
  if (!isJson(raw)) fail(i, field, `expected an object, got ${describe(raw)}`)
  const p = raw
  switch (p.type) {
    case 'text':
      return { type: 'text', text: str(p.text, i, `${field}.text`) }
    case 'refusal':
      return {
        type: 'text',
        text: str(p.refusal, i, `${field}.refusal`),
        providerMetadata: { [OPENAI_CHAT]: { type: 'refusal' } },
      }
    case 'image_url': {
      const img = p.image_url
      if (!isJson(img)) fail(i, `${field}.image_url`, `expected an object, got ${describe(img)}`)
      const url = str(img.url, i, `${field}.image_url.url`)
      const detail = img.detail
      if (detail !== undefined && detail !== 'auto' && detail !== 'low' && detail !== 'high') {
        fail(i, `${field}.image_url.detail`, `expected auto, low or high, got ${describe(detail)}`)
      }
      return { type: 'image', url, ...(detail !== undefined && { detail }) }
    }
    case 'input_audio': {
      const a = p.input_audio
      if (!isJson(a)) fail(i, `${field}.input_audio`, `expected an object, got ${describe(a)}`)
      return {
        type: 'file',
        data: str(a.data, i, `${field}.input_audio.data`),
        mediaType: `audio/${str(a.format, i, `${field}.input_audio.format`)}`,
        providerMetadata: { [OPENAI_CHAT]: { type: 'input_audio' } },
      }
    }
    case 'file': {
      const f = p.file
      if (!isJson(f)) fail(i, `${field}.file`, `expected an object, got ${describe(f)}`)
      const data = str(f.file_data, i, `${field}.file.file_data`, true)
      const filename = str(f.filename, i, `${field}.file.filename`, true)
      const fileId = str(f.file_id, i, `${field}.file.file_id`, true)
      return {
        type: 'file',
        ...(data !== undefined && { data }),
        ...(filename !== undefined && { filename }),
        ...(fileId !== undefined && { providerMetadata: { [OPENAI_CHAT]: { fileId } } }),
      }
    }
    default:
      return fail(i, `${field}.type`, `unknown content part type ${describeValue(p.type)}`)
  }
}
