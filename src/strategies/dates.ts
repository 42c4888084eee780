import { type Message, messageText } from '../messages/message.js'
import { newestUserText, spoken } from './query-terms.js'
import type { Scorer } from './scorers.js'
import type { View } from './types.js'

const NAMES =
  'january february march april may june july august september october november december'.split(' ')

/** Month number by name and short name ("jun", "sept"). */
const MONTHS: Record<string, number> = { sept: 9 }
NAMES.forEach((name, k) => {
  MONTHS[name] = k + 1
  MONTHS[name.slice(0, 3)] = k + 1
})

const MONTH = `(${Object.keys(MONTHS)
  .sort((a, b) => b.length - a.length)
  .join('|')})\\.?`
const DAY = '([012]?\\d|3[01])(?:st|nd|rd|th)?'
const YEAR = '((?:19|20)\\d\\d)'

/** One date expression: ISO, "3 June, 2023", "3rd of June", "June 3rd, 2023", "June 2023", "June", "2023". */
const DATE = new RegExp(
  [
    `\\b${YEAR}-(0?[1-9]|1[0-2])-(0?[1-9]|[12]\\d|3[01])\\b`,
    `\\b${DAY}(?:\\s+of)?\\s+${MONTH}(?:,?\\s+${YEAR})?\\b`,
    `\\b${MONTH}\\s+${DAY}(?:,?\\s+${YEAR})?\\b`,
    `\\b${MONTH}(?:,?\\s+${YEAR})?\\b`,
    `\\b${YEAR}\\b`,
  ].join('|'),
  'giu',
)

/**
 * The dates a text names, as keys a date is found by: a full date gives its year, month of
 * the year, day, month and day of the month (`y2023`, `y2023-6`, `y2023-6-27`, `m6`,
 * `m6-27`); a month alone gives `m6`; a year alone `y2023`. "May" and short month names count
 * only with a day or a year beside them, so "may I" names no date.
 */
export function dateKeys(text: string): string[] {
  const keys = new Set<string>()
  for (const m of text.matchAll(DATE)) {
    let y: string | undefined
    let mo: number | undefined
    let d: number | undefined
    if (m[1]) {
      y = m[1]
      mo = Number(m[2])
      d = Number(m[3])
    } else if (m[5]) {
      d = Number(m[4])
      mo = MONTHS[m[5].toLowerCase()]
      y = m[6]
    } else if (m[7]) {
      mo = MONTHS[m[7].toLowerCase()]
      d = Number(m[8])
      y = m[9]
    } else if (m[10]) {
      const word = m[10].toLowerCase()
      y = m[11]
      // A month alone only by its full name, and never "may" (the verb).
      if (!y && (word === 'may' || !NAMES.includes(word))) continue
      mo = MONTHS[word]
    } else {
      y = m[12]
    }
    if (d !== undefined && !(d >= 1 && d <= 31)) d = undefined
    if (y) keys.add(`y${y}`)
    if (mo !== undefined) {
      keys.add(`m${mo}`)
      if (y) keys.add(`y${y}-${mo}`)
      if (d !== undefined) {
        keys.add(`m${mo}-${d}`)
        if (y) keys.add(`y${y}-${mo}-${d}`)
      }
    }
  }
  return [...keys]
}

/** A date heading a message: in a leading "[...]" (`[1:36 pm on 3 July, 2023] ...`) or opening its text. */
const HEADING =
  /^\s*(?:\[([^\]\n]{1,60})\]|((?:\d{4}-\d\d?-\d\d?|\d{1,2}\s+\p{L}+,?\s+\d{4}|\p{L}+\s+\d{1,2},?\s+\d{4})))/u

interface Dated {
  /** Dates the message's text names. */
  own: readonly string[]
  /** The date heading it, if any: the date of what follows until the next heading. */
  heading: readonly string[] | undefined
}

const datedCache = new WeakMap<Message, Dated>()
function datedOf(m: Message): Dated {
  let x = datedCache.get(m)
  if (!x) {
    const text = messageText(m)
    // Only a person's turn opens a session: a tool result's text dates nothing after it.
    const h = spoken(m) ? HEADING.exec(text) : null
    const headingKeys = h ? dateKeys(h[1] ?? h[2] ?? '') : []
    x = { own: dateKeys(text), heading: headingKeys.length ? headingKeys : undefined }
    datedCache.set(m, x)
  }
  return x
}

/**
 * For a query naming a date ("What did she start on 3 June, 2023?", "camping in June"),
 * each unit's match with it: the dates the unit names and the date of its session (the
 * latest date heading a message at or before it, as chat logs put the day before a
 * session's first line), each date key the query shares weighted by how rare it is among
 * the units (BM25's idf), so a year every session shares counts for little. Other units 0.
 */
export function dates(options: { query?: string } = {}): Scorer {
  return (view: View) => {
    const n = view.unitCount
    const out = new Array<number>(n).fill(0)
    const query = options.query ?? view.query ?? newestUserText(view)
    const wanted = dateKeys(query)
    if (wanted.length === 0 || n === 0) return out
    const unitKeys: Set<string>[] = []
    const df = new Map<string, number>()
    let session: readonly string[] = []
    for (let u = 0; u < n; u++) {
      const keys = new Set<string>()
      for (let i = view.start(u); i < view.end(u); i++) {
        const d = datedOf(view.message(i))
        if (d.heading) session = d.heading
        for (const k of d.own) keys.add(k)
      }
      for (const k of session) keys.add(k)
      unitKeys.push(keys)
      for (const k of wanted) if (keys.has(k)) df.set(k, (df.get(k) ?? 0) + 1)
    }
    for (let u = 0; u < n; u++) {
      let s = 0
      for (const k of wanted) {
        if (!unitKeys[u]?.has(k)) continue
        const d = df.get(k) ?? 0
        s += Math.log(1 + (n - d + 0.5) / (d + 0.5))
      }
      out[u] = s
    }
    return out
  }
}
