/**
 * A fresh append id: 128 random bits in hex. `crypto.getRandomValues` is in every runtime the
 * library supports (`randomUUID` is missing from browser pages served over plain http).
 */
export function newAppendId(): string {
  const bytes = new Uint8Array(16)
  globalThis.crypto.getRandomValues(bytes)
  let hex = ''
  for (const b of bytes) hex += b.toString(16).padStart(2, '0')
  return hex
}
