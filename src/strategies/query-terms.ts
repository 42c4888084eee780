/**
 * The words a query and a message are read as: lower-cased, stop words out, stemmed, kept
 * once per message; and the newest user turn, a query by default.
 */
import { type Message, messageText } from '../messages/message.js'
import type { Unit } from '../messages/units.js'
import { requireArgument } from '../options-check.js'
import type { View } from './types.js'

/** Terms of a message, computed once per message object: an agent asks every turn. */
const termCache = new WeakMap<Message, string[]>()

/** A message's terms (`terms_` of its text), read once per message object and shared by every scorer. */
export function messageTerms(m: Message): readonly string[] {
  let t = termCache.get(m)
  if (!t) {
    t = terms_(messageText(m))
    termCache.set(m, t)
  }
  return t
}

export function unitTerms(view: View, unit: Unit): string[] {
  const out: string[] = []
  for (let i = unit.start; i < unit.end; i++)
    for (const x of messageTerms(view.message(i))) out.push(x)
  return out
}

/** The text of the newest user message: the default query. */
export function newestUserText(view: View): string {
  requireArgument(
    typeof view === 'object' &&
      view !== null &&
      Array.isArray(view.messages) &&
      typeof view.message === 'function',
    'newestUserText',
    'view',
    'a view',
    view,
  )
  for (let i = view.messages.length - 1; i >= 0; i--) {
    const m = view.message(i)
    if (m.role === 'user') return messageText(m)
  }
  return ''
}

const STOP = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by can
  could did do does doing down during each few for from further had has have having he her here hers herself him himself his
  how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours
  ourselves out over own same she should so some such than that the their theirs them themselves then there these they this
  those through to too under until up very was we were what when where which while who whom why will with would you your
  yours yourself yourselves also yeah yes oh ok okay really like just got get gonna wanna hey hi thanks thank um uh`.split(
    /\s+/,
  ),
)

/** A turn a person wrote (a user's or an assistant's), whose text may open with who said it and when. */
export const spoken = (m: Message): boolean => m.role === 'user' || m.role === 'assistant'

/** Runs of letters and digits, made once here (see `LETTER_RUNS` in named-scorers.ts). */
const WORD_RUNS = /[\p{L}\p{N}]+/gu

/** Lower-cased words, stop words out, a light suffix stemmer. */
export function terms_(text: string): string[] {
  const out: string[] = []
  for (const raw of text.toLowerCase().match(WORD_RUNS) ?? []) {
    if (raw.length < 2 || STOP.has(raw)) continue
    out.push(stem(raw))
  }
  return out
}

function stem(w: string): string {
  if (w.length <= 3) return w
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`
  if (w.endsWith('ing') && w.length > 5) return w.slice(0, -3)
  if (w.endsWith('ed') && w.length > 4) return w.slice(0, -2)
  if (w.endsWith('es') && w.length > 4) return w.slice(0, -2)
  if (w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1)
  return w
}
