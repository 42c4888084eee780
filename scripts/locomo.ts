import type { Message } from '../src/messages/message.js'

/** One LoCoMo sample (snap-research/LoCoMo, CC BY-NC 4.0). */
export interface LocomoSample {
  sample_id: string
  conversation: Record<string, unknown>
  qa: { question: string; answer?: unknown; evidence?: string[]; category: number }[]
}

interface Turn {
  speaker: string
  dia_id: string
  text: string
  blip_caption?: string
}

export interface LocomoChat {
  messages: Message[]
  /** Message index -> dia_id (undefined for the system line). */
  diaIds: (string | undefined)[]
}

export interface LocomoChatOptions {
  /** The session's date before its first turn only (default), before every turn, or nowhere. */
  dates?: 'first' | 'every' | 'none'
  /** The speaker's name as a "<speaker>: " prefix of the text (default) or in the message's `name`. */
  speaker?: 'text' | 'name'
}

/**
 * The chat a LoCoMo conversation becomes: one system line naming the speakers, then every
 * turn in order (speaker_a as user, speaker_b as assistant, "<speaker>: <text>", the image
 * caption appended, the session's date before its first turn). Only what a user of the
 * library would have: who spoke, when the session was, what they said and showed.
 */
export function locomoChat(sample: LocomoSample, options: LocomoChatOptions = {}): LocomoChat {
  const { dates = 'first', speaker = 'text' } = options
  const c = sample.conversation
  const a = String(c.speaker_a)
  const b = String(c.speaker_b)
  const messages: Message[] = [{ role: 'system', content: `A conversation between ${a} and ${b}.` }]
  const diaIds: (string | undefined)[] = [undefined]
  const sessions = Object.keys(c)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((x, y) => x - y)
  for (const s of sessions) {
    const turns = (c[`session_${s}`] as Turn[] | undefined) ?? []
    const date = c[`session_${s}_date_time`]
    turns.forEach((t, k) => {
      let text = speaker === 'text' ? `${t.speaker}: ${t.text}` : t.text
      if (t.blip_caption) text += ` [image: ${t.blip_caption}]`
      if (date && (dates === 'every' || (dates === 'first' && k === 0))) text = `[${date}] ${text}`
      messages.push({
        role: t.speaker === a ? 'user' : 'assistant',
        content: text,
        ...(speaker === 'name' && { name: t.speaker }),
      })
      diaIds.push(t.dia_id)
    })
  }
  return { messages, diaIds }
}

/** Evidence ids as the data README says: split on `;` and spaces, `D:11:26` -> `D11:26`, `D30:05` -> `D30:5`. */
export function normaliseEvidence(evidence: readonly string[] | undefined): string[] {
  const out: string[] = []
  for (const raw of evidence ?? []) {
    for (const part of raw.split(/[;,\s]+/)) {
      const m = /^D:?(\d+):0*(\d+)$/.exec(part.trim())
      if (m) out.push(`D${Number(m[1])}:${Number(m[2])}`)
    }
  }
  return out
}
