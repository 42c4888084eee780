import type { Message } from '../messages/message.js'

/**
 * Characters of encrypted reasoning a message sends back (a Responses reasoning item's
 * `encrypted_content`, noted by its codec as `encryptedChars`): no text field shows it,
 * yet it is sent, and it is sent only while the message keeps its reasoning.
 */
export function hiddenChars(m: Message): number {
  if (m.role !== 'assistant' || m.thought === undefined) return 0
  let n = 0
  for (const data of Object.values(m.providerMetadata ?? {})) {
    const c = data?.encryptedChars
    if (typeof c === 'number' && Number.isFinite(c) && c > 0) n += c
  }
  return n
}

/**
 * Tokens counted for encrypted reasoning: one per 4 base64 characters. The blob is about
 * 3/4 of its length in bytes, and what it decrypts to is text at about 4 bytes a token,
 * so this is above what it holds rather than below.
 */
export function hiddenTokens(m: Message): number {
  return Math.ceil(hiddenChars(m) / 4)
}

/**
 * What a codec sends with a message that no field of it shows (Anthropic's server tool
 * blocks, noted by their codec as `carried`, their JSON): counted as that text.
 */
export function carriedText(m: Message): string {
  let out = ''
  for (const data of Object.values(m.providerMetadata ?? {})) {
    const c = data?.carried
    if (typeof c === 'string' && c) out += c
  }
  return out
}
