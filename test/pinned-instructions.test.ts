// standingInstructions(): an option, off by default, that pins a user's standing
// instructions; how often it pins what it should and should not (npm run eval:instructions).
import { describe, expect, it } from 'vitest'
import { evaluateInstructions } from '../scripts/eval-instructions.js'
import { standingInstructions } from '../src/advanced.js'
import { fit, type Message } from '../src/index.js'

const history = (): Message[] => {
  const h: Message[] = [
    { role: 'system', content: 'You book flights.' },
    { role: 'user', content: 'Hi! From now on never book basic economy for me.' },
    { role: 'assistant', content: 'Noted.' },
  ]
  for (let t = 0; t < 30; t++)
    h.push(
      { role: 'user', content: `I always loved city ${t}. Any flight there next week?` },
      { role: 'assistant', content: `HAT${100 + t} to city ${t} is $${300 + t}.` },
    )
  h.push({ role: 'user', content: 'Book the cheapest.' })
  return h
}

describe('standingInstructions', () => {
  it('pins the instruction, not the sentences that only say "always"; off unless given', () => {
    const h = history()
    const r = fit(h, { budget: 300, pin: standingInstructions() })
    expect(r.kept).toContain(1)
    const pin = standingInstructions()
    expect(h.filter((m, i) => pin(m, i)).map((m) => m.content)).toEqual([h[1]?.content])
    expect(fit(h, { budget: 300 }).kept).not.toContain(1)
    // A user's message only.
    expect(pin({ role: 'assistant', content: 'From now on I will answer in French.' }, 0)).toBe(
      false,
    )
  })

  it('pins what it should and rarely what it should not (the figures eval:instructions prints)', () => {
    const [should, notWritten, notTau, notTau2, notLocomo] = evaluateInstructions()
    expect(should?.rate).toBeGreaterThanOrEqual(0.9)
    expect(notWritten?.rate).toBeLessThanOrEqual(0.1)
    expect(notTau?.rate).toBeLessThanOrEqual(0.01)
    expect(notTau2?.texts).toBeGreaterThan(100)
    expect(notTau2?.rate).toBeLessThanOrEqual(0.02)
    expect(notLocomo?.rate).toBeLessThanOrEqual(0.02)
  })
})
