// The credential filter against corpora it was not built from (test/credentials):
// secretlint's rule fixtures, credentials written by class, and identifiers an agent needs.
//
// Secrets: fully covered (every character inside a span), partially, missed; by rule and by
// class. Identifiers and the parts beside a secret that must stay readable: hidden (inside a
// span) or cut (a span's edge inside them). secretlint's negatives: those a span is found in.
// The filter's cost per MB of the corpora's text, and gitleaks' figures as credentials.test.ts
// scores them, for reference.
//
// npm run eval:credentials [-- --all] [--json]
import { parseArgs } from 'node:util'
import { credentialSpans, isCredential, redactCredentials } from '../src/messages/credentials.js'
import {
  corpora,
  falsePositives,
  keptValuesFlagged,
  type Score,
  score,
  scoreGitleaks,
} from '../test/credentials/corpora.js'

const { values } = parseArgs({
  options: { all: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
})
const EXAMPLES = values.all ? Number.POSITIVE_INFINITY : 6

const c = corpora()
const spansOf = (text: string) => credentialSpans(text)
const scores = {
  secretlint: score(c.secretlint, spansOf),
  written: score(c.written, spansOf),
  precision: score(c.precision, spansOf),
}
const fps = falsePositives(c.negatives, spansOf)
// The ledger reads each extracted value alone (isCredential): an identifier must pass there too.
const alone = keptValuesFlagged(c.precision, isCredential)

// Cost: every text of the corpora scanned over and over, after one warm-up pass (which
// compiles the token rules the texts need); the fastest of five rounds of half a second each,
// the others being the machine's noise.
const texts = [
  ...c.secretlint.map((s) => s.text),
  ...c.negatives.map((s) => s.text),
  ...c.written.map((s) => s.text),
  ...c.precision.map((s) => s.text),
]
const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0)
for (const t of texts) credentialSpans(t)
let msPerMB = Number.POSITIVE_INFINITY
let passes = 0
for (let round = 0; round < 5; round++) {
  let n = 0
  const start = performance.now()
  while (performance.now() - start < 500) {
    for (const t of texts) credentialSpans(t)
    n++
  }
  passes += n
  msPerMB = Math.min(msPerMB, (performance.now() - start) / n / (bytes / 1e6))
}

// gitleaks' samples, scored as credentials.test.ts scores them (isCredential on each sample).
const gl = scoreGitleaks(isCredential).tally

const pct = (n: number, d: number) => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`)
const oneLine = (s: string, n = 140) => {
  const t = s.replace(/\n/g, '⏎')
  return t.length > n ? `${t.slice(0, n)}…` : t
}

if (values.json) {
  const plain = (s: Score) => ({
    total: s.total,
    byClass: Object.fromEntries(s.byClass),
    misses: s.misses.map(({ text: _, ...m }) => m),
    damaged: s.damaged.map(({ text: _, ...m }) => m),
  })
  console.log(
    JSON.stringify(
      {
        secretlint: plain(scores.secretlint),
        written: plain(scores.written),
        precision: plain(scores.precision),
        negatives: { texts: c.negatives.length, flagged: fps },
        identifiersReadAsCredentialsAlone: alone,
        msPerMB,
        bytes,
        gitleaks: gl,
      },
      null,
      2,
    ),
  )
} else {
  const secretsTable = (title: string, s: Score) => {
    console.log(`\n${title}`)
    console.log('| rule or class | secrets | full | partial | missed | kept parts | cut | hidden |')
    console.log('| --- | --: | --: | --: | --: | --: | --: | --: |')
    for (const [cls, t] of [...s.byClass].sort(([a], [b]) => a.localeCompare(b)))
      console.log(
        `| ${cls} | ${t.secrets} | ${t.full} | ${t.partial} | ${t.missed} | ${t.kept} | ${t.cut} | ${t.hidden} |`,
      )
    const t = s.total
    console.log(
      `| **all** | ${t.secrets} | ${t.full} (${pct(t.full, t.secrets)}) | ${t.partial} | ${t.missed} | ${t.kept} | ${t.cut} | ${t.hidden} |`,
    )
  }
  const examples = (title: string, xs: Score['misses']) => {
    if (xs.length === 0) return
    console.log(
      `\n${title} (${xs.length}${xs.length > EXAMPLES ? `, first ${EXAMPLES} of each class` : ''}):`,
    )
    const shown = new Map<string, number>()
    for (const x of xs) {
      const n = shown.get(x.class) ?? 0
      if (n >= EXAMPLES) continue
      shown.set(x.class, n + 1)
      console.log(`- ${x.id} [${x.how}] ${JSON.stringify(oneLine(x.value, 60))}`)
      console.log(`    ${oneLine(redactCredentials(x.text))}`)
    }
  }
  secretsTable("secretlint's true positives, by rule", scores.secretlint)
  examples('secretlint: not fully covered', scores.secretlint.misses)
  console.log(
    `\nsecretlint's negatives: ${fps.length} of ${c.negatives.length} texts have a span: ${fps
      .map((f) => `${f.id} (${f.flagged.map((x) => JSON.stringify(oneLine(x, 40))).join(', ')})`)
      .join('; ')}`,
  )
  secretsTable(
    'Written corpus, by class (kept parts: flags, commands, hosts, paths)',
    scores.written,
  )
  examples('written: not fully covered', scores.written.misses)
  examples('written: kept parts damaged', scores.written.damaged)
  secretsTable('Precision corpus, by context (kept parts: the identifiers)', scores.precision)
  examples('precision: identifiers hidden or cut', scores.precision.damaged)
  examples('precision: credentials beside them not fully covered', scores.precision.misses)
  const aloneBy = new Map<string, string[]>()
  for (const a of alone) aloneBy.set(a.class, [...(aloneBy.get(a.class) ?? []), a.value])
  console.log(
    `\nprecision: identifiers isCredential takes for credentials on their own (the ledger's reading): ${alone.length} of ${scores.precision.total.kept}`,
  )
  for (const [cls, vs] of aloneBy)
    console.log(
      `- ${cls} (${vs.length}): ${vs
        .slice(0, EXAMPLES)
        .map((v) => oneLine(v, 48))
        .join(', ')}`,
    )
  console.log(
    `\ncost: ${msPerMB.toFixed(1)} ms per MB (${texts.length} texts, ${(bytes / 1e3).toFixed(0)} KB, ${passes} passes, the fastest of 5 rounds)`,
  )
  console.log(
    `gitleaks samples (isCredential, as credentials.test.ts): ${Object.entries(gl)
      .map(
        ([k, t]) => `${k}: ${t.detected}/${t.tps} tps detected, ${t.flagged}/${t.fps} fps flagged`,
      )
      .join('; ')}`,
  )
  const s = scores
  console.log(
    `\nsummary: secretlint ${s.secretlint.total.full}/${s.secretlint.total.secrets} fully covered (${pct(s.secretlint.total.full, s.secretlint.total.secrets)}); written ${s.written.total.full}/${s.written.total.secrets} (${pct(s.written.total.full, s.written.total.secrets)}), kept parts damaged ${s.written.total.cut + s.written.total.hidden}/${s.written.total.kept}; precision: ${s.precision.total.hidden} of ${s.precision.total.kept} identifiers hidden, ${s.precision.total.cut} cut, ${alone.length} read as credentials alone; credentials beside them ${s.precision.total.full}/${s.precision.total.secrets}; secretlint negatives flagged ${fps.length}/${c.negatives.length}`,
  )
}
