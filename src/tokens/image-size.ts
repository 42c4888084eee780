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
  const bytes = Buffer.from(data.slice(0, 87_384), 'base64')
  return sniff(bytes)
}

function sniff(b: Buffer): Size | undefined {
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47) {
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) }
  }
  if (b.length >= 10 && b.toString('ascii', 0, 3) === 'GIF') {
    return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) }
  }
  if (
    b.length >= 30 &&
    b.toString('ascii', 0, 4) === 'RIFF' &&
    b.toString('ascii', 8, 12) === 'WEBP'
  ) {
    const kind = b.toString('ascii', 12, 16)
    if (kind === 'VP8 ')
      return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff }
    if (kind === 'VP8L') {
      const bits = b.readUInt32LE(21)
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 }
    }
    if (kind === 'VP8X') return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 }
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let at = 2
    while (at + 9 < b.length) {
      if (b[at] !== 0xff) return undefined
      const marker = b[at + 1] as number
      const length = b.readUInt16BE(at + 2)
      const isFrame =
        marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
      if (isFrame) return { height: b.readUInt16BE(at + 5), width: b.readUInt16BE(at + 7) }
      at += 2 + length
    }
  }
  return undefined
}
