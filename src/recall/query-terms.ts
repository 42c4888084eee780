/**
 * A recall query read as terms: its first characters split into parts at spaces, commas and
 * semicolons, function words left out, a bounded number of distinct words, identifiers first.
 */
import { wordsOf } from './terms.js'

/** Words a query asks about: common function words say nothing of which message. */
const STOP = new Set(
  'the a an of to in on for and or is are was were be by with what which who when where how did do does my your at it its this that from as get'.split(
    ' ',
  ),
)

/** Characters of a query read for its words (a pasted document says no more past them). */
export const QUERY_CHARS = 10_000
/** Distinct words a query is searched for, the first ones it names. */
export const QUERY_WORDS = 64

/** What a query asks: its distinct words, and its terms (the words of each of its parts). */
export interface QueryTerms {
  /** Distinct words, in the order the query first names them (at most `QUERY_WORDS`). */
  words: string[]
  /**
   * Each part of the query (split at spaces, commas, semicolons, ideographic commas and full
   * stops): its words, distinct terms only; identifiers first (a term whose first word holds
   * a digit, `_`, `.` or `-`), each kind in the query's order.
   */
  terms: string[][]
}

/** Whether a term names an identifier: its first word (the whole) holds a digit or a joiner. */
export function isIdentifier(term: readonly string[]): boolean {
  return /[\p{N}_.-]/u.test(term[0] ?? '')
}

/** Whether a term's first word is joined (`_`, `.`, `-`): an identifier matched whole first. */
export function isJoined(term: readonly string[]): boolean {
  return term.length > 1 && /[_.-]/.test(term[0] as string)
}

/**
 * The words a query is searched for: its first `QUERY_CHARS` characters, split into terms at
 * spaces, commas and semicolons (an identifier's parts stay one term), function words left
 * out; a term named twice counts once, and only the first `QUERY_WORDS` distinct words are
 * used, so a query of any length costs at most that many words' postings.
 */
export function queryTerms(query: string): QueryTerms {
  const words: string[] = []
  const known = new Set<string>()
  const seen = new Set<string>()
  const terms: string[][] = []
  for (const part of query.slice(0, QUERY_CHARS).split(/[\s,;、。，；]+/)) {
    const term: string[] = []
    for (const w of wordsOf(part)) {
      if (STOP.has(w)) continue
      if (!known.has(w)) {
        if (words.length >= QUERY_WORDS) continue
        known.add(w)
        words.push(w)
      }
      term.push(w)
    }
    if (term.length === 0) continue
    const key = term.join(' ')
    if (seen.has(key)) continue
    seen.add(key)
    terms.push(term)
  }
  return { words, terms: [...terms.filter(isIdentifier), ...terms.filter((t) => !isIdentifier(t))] }
}
