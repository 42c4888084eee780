import { base64ToBytes } from '../messages/base64.js'
import type { ImagePart } from '../messages/message.js'

export interface Size {
  width: number
  height: number
}

/** The pixel size of an image part: given, or read from the header of inline data. */
export function imageSize(part: ImagePart): Size | undefined {
  if (part.width && part.height) return { width: part.width, height: part.height }
  let data = part.data
  if (!data && part.url?.startsWith('data:')) data = part.url.slice(part.url.indexOf(',') + 1)
  if (!data) return undefined
  // The size sits in the first bytes of PNG, GIF and WebP; JPEG may need to walk a few segments.
  const bytes = base64ToBytes(data.slice(0, 87_384))
  return sniff(bytes)
}

/** Fixed-width reads from the header bytes (a DataView: no Node `Buffer`). */
function reader(b: Uint8Array) {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength)
  return {
    u32be: (at: number) => view.getUint32(at, false),
    u32le: (at: number) => view.getUint32(at, true),
    u16be: (at: number) => view.getUint16(at, false),
    u16le: (at: number) => view.getUint16(at, true),
    u24le: (at: number) => view.getUint16(at, true) + ((b[at + 2] as number) << 16),
    ascii: (from: number, to: number) => String.fromCharCode(...b.subarray(from, to)),
  }
}

function sniff(b: Uint8Array): Size | undefined {
  const r = reader(b)
  if (b.length >= 24 && r.u32be(0) === 0x89504e47) {
    return { width: r.u32be(16), height: r.u32be(20) }
  }
  if (b.length >= 10 && r.ascii(0, 3) === 'GIF') {
    return { width: r.u16le(6), height: r.u16le(8) }
  }
  if (b.length >= 30 && r.ascii(0, 4) === 'RIFF' && r.ascii(8, 12) === 'WEBP') {
    const kind = r.ascii(12, 16)
    if (kind === 'VP8 ') return { width: r.u16le(26) & 0x3fff, height: r.u16le(28) & 0x3fff }
    if (kind === 'VP8L') {
      const bits = r.u32le(21)
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 }
    }
    if (kind === 'VP8X') return { width: r.u24le(24) + 1, height: r.u24le(27) + 1 }
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let at = 2
    while (at + 9 < b.length) {
      if (b[at] !== 0xff) return undefined
      const marker = b[at + 1] as number
      const length = r.u16be(at + 2)
      const isFrame =
        marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
      if (isFrame) return { height: r.u16be(at + 5), width: r.u16be(at + 7) }
      at += 2 + length
    }
  }
  return undefined
}
