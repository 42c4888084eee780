import { messageText } from '../../src/messages/message.js'
import { terms_ } from '../../src/strategies/query-terms.js'
import type { View } from '../../src/strategies/types.js'

/**
 * The co-occurring words' scores computed the plain way, from the description of
 * `cooccurring` and nothing the library caches: every unit's words read again, every count
 * made from scratch. Slow and obvious; what the indexed scorer must agree with.
 */
export function cooccurringReference(
  view: View,
  query: string,
  { terms = 20, window = 1, minCount = 2 } = {},
): number[] {
  const n = view.unitCount
  const scores: number[] = Array.from({ length: n }, () => 0)
  const asked = [...new Set(terms_(query))]
  if (asked.length === 0 || n < 2) return scores
  const skipped = view.newestUser()
  const words: Set<string>[] = []
  for (let u = 0; u < n; u++) {
    const set = new Set<string>()
    if (u !== skipped)
      for (let i = view.start(u); i < view.end(u); i++)
        for (const t of terms_(messageText(view.message(i)))) if (!/^\d+$/.test(t)) set.add(t)
    words.push(set)
  }
  const counted = n - (skipped >= 0 ? 1 : 0)
  const unitsWith = (t: string) => words.filter((w) => w.has(t)).length
  const idf = (t: string) => Math.log(1 + counted / (unitsWith(t) || 1))
  const weight: Record<string, number> = Object.create(null)
  for (const q of asked) {
    const holding = words.flatMap((w, u) => (w.has(q) ? [u] : []))
    if (holding.length === 0) continue
    const near = words
      .map((_, u) => u)
      .filter((u) => u !== skipped && holding.some((h) => Math.abs(h - u) <= window))
    const together: Record<string, number> = Object.create(null)
    for (const u of near)
      for (const t of words[u] ?? []) if (!asked.includes(t)) together[t] = (together[t] ?? 0) + 1
    for (const t of Object.keys(together)) {
      const c = together[t] as number
      if (c < minCount) continue
      const lift = c / near.length / (unitsWith(t) / counted)
      if (lift > 1) weight[t] = (weight[t] ?? 0) + idf(q) * Math.log(lift) * idf(t)
    }
  }
  const best = Object.keys(weight)
    .sort((a, b) => (weight[b] as number) - (weight[a] as number) || (a < b ? -1 : 1))
    .slice(0, terms)
  for (let u = 0; u < n; u++)
    if (u !== skipped)
      for (const t of best)
        if (words[u]?.has(t)) scores[u] = (scores[u] as number) + (weight[t] as number)
  return scores
}
