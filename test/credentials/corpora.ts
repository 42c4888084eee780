/**
 * The credential corpora of this folder, read, and an oracle that scores any filter's spans
 * against them by position alone (it calls nothing of the filter but the spans it is given).
 *
 * - secretlint.json: secretlint's rule fixtures (MIT): true positives by rule, negatives.
 * - written.json: credentials as people write them, by class, with the parts to keep.
 * - precision.json: identifiers an agent needs, with a few credentials beside them.
 */
import { readFileSync } from 'node:fs'

export interface Mark {
  at: number
  value: string
}
export interface Sample {
  id: string
  /** The rule (secretlint) or class (written, precision) a mark is counted under. */
  class: string
  text: string
  /** Every character of each must be inside a span. */
  secrets: (Mark & { rule?: string })[]
  /** No character of each may be inside a span. */
  kept: Mark[]
}
export type Span = readonly [number, number]
export type SpansOf = (text: string) => readonly Span[]

const read = (name: string) =>
  JSON.parse(readFileSync(new URL(`./${name}`, import.meta.url), 'utf8')) as {
    samples?: Record<string, unknown>[]
    positives?: { id: string; text: string; secrets: (Mark & { rule: string })[] }[]
    negatives?: { id: string; rule: string; text: string }[]
  }

export interface Corpora {
  secretlint: Sample[]
  negatives: { id: string; rule: string; text: string }[]
  written: Sample[]
  precision: Sample[]
}

export function corpora(): Corpora {
  const sl = read('secretlint.json')
  const w = read('written.json').samples as unknown as (Sample & { survive: Mark[] })[]
  const p = read('precision.json').samples as unknown as (Sample & { identifiers: Mark[] })[]
  return {
    secretlint: (sl.positives ?? []).map((s) => ({
      id: s.id,
      class: s.secrets[0]?.rule ?? '',
      text: s.text,
      secrets: s.secrets,
      kept: [],
    })),
    negatives: sl.negatives ?? [],
    written: w.map((s) => ({ ...s, kept: s.survive })),
    precision: p.map((s) => ({ ...s, kept: s.identifiers })),
  }
}

/** How many characters of `mark` the spans cover. */
function coveredChars(spans: readonly Span[], mark: Mark): number {
  const end = mark.at + mark.value.length
  let n = 0
  for (const [s, e] of spans) n += Math.max(0, Math.min(e, end) - Math.max(s, mark.at))
  return n
}

/** A secret: `full` when every character is inside a span, `partial` when some are. */
export function coverage(spans: readonly Span[], mark: Mark): 'full' | 'partial' | 'missed' {
  const n = coveredChars(spans, mark)
  return n >= mark.value.length ? 'full' : n > 0 ? 'partial' : 'missed'
}

/**
 * A part to keep: `whole` when no span touches it, `cut` when a span's edge falls inside it
 * (a piece reads, the rest is the mark), `hidden` when it is inside one span.
 */
export function damage(spans: readonly Span[], mark: Mark): 'whole' | 'cut' | 'hidden' {
  const end = mark.at + mark.value.length
  const n = coveredChars(spans, mark)
  if (n === 0) return 'whole'
  const inOne = spans.some(([s, e]) => s <= mark.at && e >= end)
  return inOne ? 'hidden' : 'cut'
}

/** A mark's value read back from its text (a corpus check). */
export const holds = (text: string, m: Mark) => text.slice(m.at, m.at + m.value.length) === m.value

export interface Tally {
  secrets: number
  full: number
  partial: number
  missed: number
  kept: number
  cut: number
  hidden: number
}
export interface Score {
  byClass: Map<string, Tally>
  total: Tally
  /** Secrets not fully covered, and parts to keep a span touches. */
  misses: { id: string; class: string; value: string; how: string; text: string }[]
  damaged: { id: string; class: string; value: string; how: string; text: string }[]
}

const tally = (): Tally => ({
  secrets: 0,
  full: 0,
  partial: 0,
  missed: 0,
  kept: 0,
  cut: 0,
  hidden: 0,
})

/** Scores the spans a filter gives on each sample. */
export function score(samples: readonly Sample[], spansOf: SpansOf): Score {
  const byClass = new Map<string, Tally>()
  const total = tally()
  const misses: Score['misses'] = []
  const damaged: Score['damaged'] = []
  for (const sample of samples) {
    const spans = spansOf(sample.text)
    for (const secret of sample.secrets) {
      const cls = secret.rule ?? sample.class
      const t = byClass.get(cls) ?? tally()
      byClass.set(cls, t)
      const how = coverage(spans, secret)
      for (const x of [t, total]) {
        x.secrets++
        x[how]++
      }
      if (how !== 'full')
        misses.push({ id: sample.id, class: cls, value: secret.value, how, text: sample.text })
    }
    for (const part of sample.kept) {
      const t = byClass.get(sample.class) ?? tally()
      byClass.set(sample.class, t)
      const how = damage(spans, part)
      for (const x of [t, total]) {
        x.kept++
        if (how !== 'whole') x[how]++
      }
      if (how !== 'whole')
        damaged.push({
          id: sample.id,
          class: sample.class,
          value: part.value,
          how,
          text: sample.text,
        })
    }
  }
  return { byClass, total, misses, damaged }
}

/** The negatives some span is found in, with what it covers. */
export function falsePositives(
  negatives: Corpora['negatives'],
  spansOf: SpansOf,
): { id: string; flagged: string[] }[] {
  const out: { id: string; flagged: string[] }[] = []
  for (const n of negatives) {
    const spans = spansOf(n.text)
    if (spans.length > 0) out.push({ id: n.id, flagged: spans.map(([s, e]) => n.text.slice(s, e)) })
  }
  return out
}

/**
 * The parts to keep that a judge of single values (the filter's reading of one extracted
 * fact, an id or a URL, alone) takes for a credential.
 */
export function keptValuesFlagged(
  samples: readonly Sample[],
  judge: (value: string) => boolean,
): { id: string; class: string; value: string }[] {
  const out: { id: string; class: string; value: string }[] = []
  for (const s of samples)
    for (const k of s.kept)
      if (judge(k.value)) out.push({ id: s.id, class: s.class, value: k.value })
  return out
}

/** A tally of gitleaks' samples: true positives detected, false positives flagged. */
export interface GitleaksTally {
  tps: number
  detected: number
  fps: number
  flagged: number
}

/**
 * gitleaks' own samples (test/data/gitleaks, from its rules' Go sources; MIT) scored by
 * `isCredential`, by how the rule was read (token, structural, other): the tallies, the true
 * positives missed per rule, and those the sample file marks as not evaluable.
 */
export function scoreGitleaks(isCredential: (value: string) => boolean) {
  const gitleaks = JSON.parse(
    readFileSync(new URL('../data/gitleaks/samples.json', import.meta.url), 'utf8'),
  ) as {
    rules: { id: string; treatment: string; tps: string[]; fps: string[]; skipped: number }[]
  }
  const count = (): GitleaksTally => ({ tps: 0, detected: 0, fps: 0, flagged: 0 })
  const tally = { token: count(), structural: count(), other: count() }
  const misses: Record<string, number> = {}
  let skipped = 0
  for (const rule of gitleaks.rules) {
    const kind =
      rule.treatment === 'token'
        ? 'token'
        : rule.treatment.startsWith('structural')
          ? 'structural'
          : 'other'
    const t = tally[kind]
    skipped += rule.skipped
    for (const tp of rule.tps) {
      t.tps++
      if (isCredential(tp)) t.detected++
      else misses[rule.id] = (misses[rule.id] ?? 0) + 1
    }
    for (const fp of rule.fps) {
      t.fps++
      if (isCredential(fp)) t.flagged++
    }
  }
  return { tally, misses, skipped }
}
