// The credential filter held to corpora it was not built from (this folder's README). The
// oracle is corpora.ts: coverage is read from the corpus' positions, never from the filter's
// own checks. `npm run eval:credentials` prints the same figures as tables.
import { describe, expect, it } from 'vitest'
import { credentialSpans, isCredential } from '../../src/messages/credentials.js'
import { corpora, falsePositives, holds, keptValuesFlagged, type Score, score } from './corpora.js'

const c = corpora()
const spansOf = (text: string) => credentialSpans(text)
const oneLine = (s: string, n = 80) => {
  const t = s.replace(/\n/g, '⏎')
  return t.length > n ? `${t.slice(0, n)}…` : t
}
/** Misses or damaged parts, grouped by rule or class, for a failure message. */
const list = (xs: Score['misses']) => {
  const by = new Map<string, string[]>()
  for (const x of xs)
    by.set(x.class, [
      ...(by.get(x.class) ?? []),
      `${x.id} [${x.how}] ${JSON.stringify(oneLine(x.value, 50))}`,
    ])
  return [...by].map(([cls, ys]) => `\n  ${cls} (${ys.length}):\n    ${ys.join('\n    ')}`).join('')
}

describe('the corpora', () => {
  it('every mark reads back from its text, and the corpora are not empty', () => {
    const all = [...c.secretlint, ...c.written, ...c.precision]
    const wrong = all.flatMap((s) =>
      [...s.secrets, ...s.kept].filter((m) => !holds(s.text, m)).map((m) => `${s.id}: ${m.value}`),
    )
    expect(wrong).toEqual([])
    expect(c.secretlint.flatMap((s) => s.secrets).length).toBeGreaterThan(100)
    expect(c.negatives.length).toBeGreaterThan(30)
    expect(c.written.flatMap((s) => s.secrets).length).toBeGreaterThan(250)
    expect(c.precision.flatMap((s) => s.kept).length).toBeGreaterThan(200)
  })
})

describe("secretlint's fixtures", () => {
  const s = score(c.secretlint, spansOf)
  it(`at least 99% of the true positives fully covered (${s.total.full}/${s.total.secrets}), misses named by rule`, () => {
    const fps = falsePositives(c.negatives, spansOf)
    console.log(
      `secretlint: ${s.total.full}/${s.total.secrets} fully covered, ${s.total.partial} partially, ${s.total.missed} missed; negatives with a span: ${fps.length}/${c.negatives.length} (${fps.map((f) => f.id).join(', ')})`,
    )
    expect(
      s.total.full / s.total.secrets,
      `not fully covered:${list(s.misses)}`,
    ).toBeGreaterThanOrEqual(0.99)
  })
})

describe('the written corpus', () => {
  const s = score(c.written, spansOf)
  it(`every secret fully covered (${s.total.full}/${s.total.secrets})`, () => {
    expect(s.misses.length, `not fully covered:${list(s.misses)}`).toBe(0)
  })
  it(`the parts beside each secret stay readable (${s.total.cut + s.total.hidden} of ${s.total.kept} damaged)`, () => {
    expect(s.damaged.length, `damaged:${list(s.damaged)}`).toBe(0)
  })
})

describe('the precision corpus', () => {
  const s = score(c.precision, spansOf)
  it(`no identifier hidden (${s.total.hidden} of ${s.total.kept})`, () => {
    const hidden = s.damaged.filter((d) => d.how === 'hidden')
    expect(hidden.length, `hidden:${list(hidden)}`).toBe(0)
  })
  it(`no identifier cut (${s.total.cut} of ${s.total.kept})`, () => {
    const cut = s.damaged.filter((d) => d.how === 'cut')
    expect(cut.length, `cut:${list(cut)}`).toBe(0)
  })
  // The ledger reads each extracted value alone: an identifier must not read as a credential
  // there either (the filter's answer is what is tested; the corpus says what is an id).
  const alone = keptValuesFlagged(c.precision, isCredential)
  it(`no identifier read as a credential on its own (${alone.length} of ${s.total.kept})`, () => {
    expect(
      alone.length,
      `read as credentials:${list(alone.map((a) => ({ ...a, how: 'alone', text: '' })))}`,
    ).toBe(0)
  })
  it(`the credentials beside them fully covered (${s.total.full}/${s.total.secrets})`, () => {
    expect(s.misses.length, `not fully covered:${list(s.misses)}`).toBe(0)
  })
})
