/**
 * Base64 without Node's `Buffer`, so the root entry runs in a browser or a worker as it does
 * in Node. Decoding is as lenient as `Buffer` is: characters outside the alphabet are
 * skipped, the URL-safe alphabet is read too, and padding is optional.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

let table: Int8Array | undefined
function decodeTable(): Int8Array {
  if (!table) {
    table = new Int8Array(128).fill(-1)
    for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i
    table['-'.charCodeAt(0)] = 62
    table['_'.charCodeAt(0)] = 63
  }
  return table
}

/** The bytes a base64 text stands for (invalid characters skipped). */
export function base64ToBytes(text: string): Uint8Array {
  const t = decodeTable()
  const out = new Uint8Array(Math.floor((text.length * 3) / 4) + 3)
  let n = 0
  let acc = 0
  let bits = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 61) break // '=': the end
    const v = c < 128 ? (t[c] as number) : -1
    if (v < 0) continue
    acc = (acc << 6) | v
    bits += 6
    if (bits >= 8) {
      bits -= 8
      out[n++] = (acc >> bits) & 0xff
    }
  }
  return out.subarray(0, n)
}

/** Base64 of some bytes, padded. */
export function bytesToBase64(bytes: Uint8Array): string {
  let out = ''
  let i = 0
  for (; i + 2 < bytes.length; i += 3) {
    const n =
      ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number)
    out +=
      ALPHABET[n >> 18] +
      (ALPHABET[(n >> 12) & 63] as string) +
      ALPHABET[(n >> 6) & 63] +
      ALPHABET[n & 63]
  }
  const rest = bytes.length - i
  if (rest === 1) {
    const n = (bytes[i] as number) << 16
    out += `${ALPHABET[n >> 18]}${ALPHABET[(n >> 12) & 63]}==`
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8)
    out += `${ALPHABET[n >> 18]}${ALPHABET[(n >> 12) & 63]}${ALPHABET[(n >> 6) & 63]}=`
  }
  return out
}

/** The UTF-8 text a base64 text holds (invalid sequences become U+FFFD, as `Buffer` gives). */
export function base64ToText(text: string): string {
  return new TextDecoder().decode(base64ToBytes(text))
}

/** Base64 of a text's UTF-8 bytes. */
export function textToBase64(text: string): string {
  return bytesToBase64(new TextEncoder().encode(text))
}
