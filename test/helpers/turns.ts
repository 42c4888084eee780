/** Deterministic user turns of a given size in words, each different, for agent-loop tests. */
const WORDS =
  'booking flight passenger seat baggage refund economy business cabin upgrade airport gate delay cancel reservation payment card voucher certificate insurance itinerary departure arrival connection layover membership gold silver regular change date origin destination'.split(
    ' ',
  )

export function userTurn(k: number, words = 300): string {
  const out: string[] = [`Turn ${k}:`]
  let x = (k + 1) * 2654435761
  for (let i = 0; i < words; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    out.push(WORDS[x % WORDS.length] as string)
  }
  return `${out.join(' ')}?`
}

export const SYSTEM_PROMPT =
  'You are an airline agent. Follow the policy: confirm every change with the user, never book without explicit consent, and keep answers short.'
