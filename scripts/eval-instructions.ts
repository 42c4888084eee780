// How often `standingInstructions()` (an option, off by default) pins what it should and
// what it should not. Should: standing instructions written for this evaluation, in varied
// wording. Should not: descriptive "always" / "never" sentences written beside them, every
// user turn of the τ-bench airline trajectories (a customer's requests of the moment), and
// every turn of the LoCoMo conversations (friends talking; none addresses an assistant), and
// the user turns of the τ²-bench conversations run by Claude (requests of the moment too).
// npm run eval:instructions [-- --json] [--show (the turns it pins that it should not)]
import { parseArgs } from 'node:util'
import type { Message } from '../src/messages/message.js'
import { standingInstructions } from '../src/strategies/pins.js'
import { LOCOMO_DEV_PATH, readLocomo } from '../test/locomo-data.js'
import { tauBench } from '../test/tau-bench.js'
import { tau2Claude } from '../test/tau2-claude.js'
import { type LocomoSample, locomoChat } from './locomo.js'

/** Standing instructions: what a user wants done from now on. */
export const SHOULD = [
  'From now on never book basic economy, and keep every flight under $600.',
  'Going forward, please always answer in French.',
  'Always use metric units.',
  'Never share my email address with anyone.',
  "Please don't ever call me by my first name.",
  'For the rest of this conversation, keep your answers under three sentences.',
  'Make sure you always ask before charging my card.',
  'Remember to never schedule meetings on Fridays.',
  'I always want a window seat.',
  'We never fly with layovers longer than two hours.',
  'From now on, write the code in TypeScript, not JavaScript.',
  'In future, cc my assistant on every confirmation.',
  'Always double-check the dates with me before you book anything.',
  'Never use my gift card unless I say so.',
  'Thanks. And always include the booking reference in your reply.',
  'OK, but never cancel anything without asking me first.',
  'Until I say otherwise, only show refundable fares.',
  'Every time you quote a price, give it in euros.',
  'Keep in mind that I never eat meat, so no meat meals on flights.',
  'I always pay with the Visa ending 4521.',
  'Whenever you suggest a hotel, pick one near the station.',
  'Please always confirm the total before you submit.',
  'Be sure to never reply in all caps.',
  'From here on, treat my wife Anna as a traveller on every booking.',
  'Going forward skip the pleasantries and get to the point.',
  'Never book me on a red-eye.',
  'Always sign off your emails with "Best, Sam".',
  'Do not ever store my passport number.',
  'I never want travel insurance, stop offering it.',
  'So always check the baggage allowance first.',
]

/** Sentences with "always" or "never" that instruct nobody. */
export const SHOULD_NOT = [
  "I've always loved dancing, since I was a kid.",
  'I never thought I would see a meteor shower like that.',
  'She was always there for me when things got hard.',
  'We never went back to that beach after the storm.',
  'Always a pleasure talking to you!',
  'I have never been to Rome before.',
  'My kids always ask for dinosaur books.',
  'It never gets old, watching the sunset from the porch.',
  'He always knew what to say.',
  'Never mind, I found the reservation number.',
  "You're always so thoughtful, thank you.",
  'I never got the confirmation email for the last booking.',
  'The flight is always late on Mondays, apparently.',
  'We always had pets growing up.',
  'I never liked flying much.',
  'What do you always recommend for long flights?',
  "It's never too late to learn something new.",
  'My father always said patience pays off.',
  'I almost never check my voicemail.',
  'Why does the app always log me out?',
]

function textOf(m: Message): string {
  const content = m.content ?? ''
  return typeof content === 'string'
    ? content
    : content.map((p) => (p.type === 'text' ? p.text : '')).join('\n')
}

export interface InstructionFigures {
  set: string
  texts: number
  pinned: number
  rate: number
  examples: string[]
}

export function evaluateInstructions(): InstructionFigures[] {
  const pin = standingInstructions()
  const user = (content: string): Message => ({ role: 'user', content })
  const sets: [string, string[]][] = [
    ['should: standing instructions (written here)', SHOULD],
    ['should not: always / never, instructing nobody (written here)', SHOULD_NOT],
    [
      'should not: τ-bench airline user turns',
      tauBench().flatMap((r) =>
        r.traj
          .filter((m) => m.role === 'user' && typeof m.content === 'string')
          .map((m) => m.content as string),
      ),
    ],
    [
      'should not: τ²-bench airline user turns of conversations run by Claude (not measured before)',
      tau2Claude().flatMap((r) =>
        r.traj
          .filter((m) => m.role === 'user' && typeof m.content === 'string')
          .map((m) => m.content as string),
      ),
    ],
    [
      'should not: LoCoMo turns',
      (readLocomo(LOCOMO_DEV_PATH) as LocomoSample[]).flatMap((s) =>
        locomoChat(s, { dates: 'none' })
          .messages.slice(1)
          .map((m) => textOf(m).replace(/^[^:]+: /, '')),
      ),
    ],
  ]
  return sets.map(([set, texts]) => {
    const hits = texts.filter((t, i) => pin(user(t), i))
    return {
      set,
      texts: texts.length,
      pinned: hits.length,
      rate: texts.length ? hits.length / texts.length : 0,
      examples: hits.slice(0, 10),
    }
  })
}

function main(): void {
  const { values } = parseArgs({
    options: { json: { type: 'boolean' }, show: { type: 'boolean' } },
  })
  const rows = evaluateInstructions()
  if (values.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`)
    return
  }
  const lines = [
    '| texts | count | pinned | rate |',
    '| --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.set} | ${r.texts} | ${r.pinned} | ${(100 * r.rate).toFixed(1)}% |`),
  ]
  process.stdout.write(`${lines.join('\n')}\n`)
  if (values.show)
    for (const r of rows.slice(1))
      for (const e of r.examples) process.stdout.write(`- ${r.set}: ${JSON.stringify(e)}\n`)
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) main()
