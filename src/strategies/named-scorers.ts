/**
 * Scorers of what a query names: identifiers (order numbers, codes), entities (capitalised
 * names), and the people speaking (their turns and their news).
 */
import { type Message, messageText } from '../messages/message.js'
import { dateKeys } from './dates.js'
import { newestUserText, spoken } from './query-terms.js'
import { eachUnit, type Scorer } from './scorers.js'

/**
 * A token mixing letters and digits, five characters or more (`OI5L9G`, `mia_li_3668`,
 * `HAT084`, `INV-20931`): an order, user or booking id that a tool call needs verbatim.
 */
const IDENTIFIERS =
  /(?<![\p{L}\p{N}_-])(?=[\p{L}\p{N}_-]*\p{N})(?=[\p{L}\p{N}_-]*\p{L})[\p{L}\p{N}][\p{L}\p{N}_-]{4,}/gu

/** The identifiers a message holds, computed once per message object. */
const idListCache = new WeakMap<Message, readonly string[]>()
function idsOf(m: Message): readonly string[] {
  let ids = idListCache.get(m)
  if (!ids) {
    ids = [...new Set(messageText(m).match(IDENTIFIERS) ?? [])]
    idListCache.set(m, ids)
  }
  return ids
}

/**
 * 1 for a unit holding an identifier (a token of five or more characters mixing letters and
 * digits: a booking, order or user id), else 0. Agents call tools with ids the user or an
 * earlier result gave; words of the newest message rarely name them again.
 */
export function identifiers(): Scorer {
  return (view) =>
    eachUnit(view, (u) => {
      for (let i = view.start(u); i < view.end(u); i++) if (idsOf(view.message(i)).length) return 1
      return 0
    })
}

/**
 * 1 for an older unit that holds an identifier the newest turn (or the query) names: the
 * turn that introduced a booking or order id, and the tool result that defined it, come
 * back when the conversation returns to it. Other units 0.
 */
export function entities(): Scorer {
  return (view) => {
    const newest = view.newestUser()
    const from = newest >= 0 ? newest : Math.max(0, view.unitCount - 1)
    const wanted = new Set<string>()
    if (view.unitCount > 0)
      for (let i = view.start(from); i < view.messages.length; i++)
        for (const id of idsOf(view.message(i))) wanted.add(id)
    for (const id of view.query?.match(IDENTIFIERS) ?? []) wanted.add(id)
    return eachUnit(view, (u) => {
      if (wanted.size === 0 || u >= from) return 0
      for (let i = view.start(u); i < view.end(u); i++)
        for (const id of idsOf(view.message(i))) if (wanted.has(id)) return 1
      return 0
    })
  }
}

/** Who said a message: its `name`, else a "Name: " opening its text (after a "[date] "). */
const SPEAKER = /^(?:\[[^\]]*\]\s*)?(\p{Lu}[\p{L}'-]*):/u

/** Runs of letters, made once here: a `\p{}` pattern written inside a function is made anew at each call in the Node bundle. */
const LETTER_RUNS = /\p{L}+/gu
/** First-person news ("I just signed up...", "we went...") and a time said with it ("yesterday", "last week"). */
const NEWS =
  /\b(i|we|my|our)\b[^.!?]{0,60}\b(went|took|got|made|bought|started|joined|signed|visited|tried|finished|saw|met|began|learned|adopted|moved|found|won|lost|built|painted|ran|played|attended|read|wrote|volunteered|decided|had|did|just|been|going|gonna|planning|plan)\b/i
const WHEN =
  /\b(yesterday|last (week|weekend|month|year|night)|ago|recently|this (week|weekend|month)|tomorrow|next (week|month))\b/i

/** Each message's speaker (lower-cased, '' for none) and how much news it tells, once per message object. */
const newsCache = new WeakMap<Message, [string, number]>()
function newsOf(m: Message): [string, number] {
  let x = newsCache.get(m)
  if (!x) {
    const text = messageText(m)
    x = [
      // Only a person's own turn names its speaker in its text: a tool result or a system
      // message opening "Ben: ..." is not Ben speaking.
      (m.name ?? (spoken(m) ? SPEAKER.exec(text)?.[1] : undefined) ?? '').toLowerCase(),
      (NEWS.test(text) ? 0.6 : 0) + (WHEN.test(text) ? 0.4 : 0),
    ]
    newsCache.set(m, x)
  }
  return x
}

/**
 * For a query that names a speaker ("What activities does Melanie do?"), the news that
 * speaker told: first-person events ("I just signed up for a pottery class") and when
 * (0.4 for a time said with it, 0.6 for the event). Other units 0. What a person did is
 * most often in their own words, in the words of a story, not of the question.
 */
export function speakerNews(options: { query?: string } = {}): Scorer {
  return (view) => {
    const query = options.query ?? view.query ?? newestUserText(view)
    const named = new Set(query.toLowerCase().match(LETTER_RUNS))
    const last = view.unitCount - 1
    return eachUnit(view, (u) => {
      const [who, news] = newsOf(view.first(u))
      return u < last && who && named.has(who) ? news : 0
    })
  }
}

/**
 * 1 for a unit spoken by someone the query names ("What did Melanie paint?": Melanie's own
 * turns, by `name` or a "Name: " opening the text; the asker's own "Name: " names no one),
 * else 0: among turns that match as well, the person's own words come first.
 */
export function spokenBy(options: { query?: string } = {}): Scorer {
  return (view) => {
    const query = options.query ?? view.query ?? newestUserText(view)
    const named = new Set(query.toLowerCase().match(LETTER_RUNS))
    // The asker's own "Name: " names no one.
    const asker = SPEAKER.exec(query)?.[1]?.toLowerCase()
    if (asker) named.delete(asker)
    const last = view.unitCount - 1
    return eachUnit(view, (u) => {
      const who = newsOf(view.first(u))[0]
      return u < last && who && named.has(who) ? 1 : 0
    })
  }
}

/**
 * A question asking for a name: opening with who, whom or where, or asking which or
 * what of a kind of named thing ("Which cities...", "What musical artists...", "What
 * states..."), at the start of the text or of any of its sentences.
 */
const ASKS_NAME =
  /(?:^\s*|[.!?]\s+)(?:(?:who|whom|where)\b|(?:which|what)\s+(?:[\p{L}-]+\s+)?(?:(?:cit|countr|compan)(?:y|ies)|(?:town|state|place|person|name|band|artist|author|book|movie|film|song|team|brand)s?|people)\b)/iu

/** A capitalised word that does not open a sentence: a name ("Rome", "Matt", "Oregon"). */
// The capital is matched before the look back, so only a capital's position looks back.
const NAME_WORD = /\p{Lu}(?<=[\p{L}\p{N},;]\s+\p{Lu})\p{Ll}[\p{Ll}'-]*/gu

/** A day's name, which names a time, not a person or a place (a month's is a date). */
const DAY = /^(?:mon|tues|wednes|thurs|fri|satur|sun)day$/

/** The names a message holds (lower-cased, times left out), computed once per message object. */
const namesCache = new WeakMap<Message, readonly string[]>()
function namesOf(m: Message): readonly string[] {
  let names = namesCache.get(m)
  if (!names) {
    const found = messageText(m).match(NAME_WORD) ?? []
    names = found.map((w) => w.toLowerCase()).filter((w) => !DAY.test(w) && !dateKeys(w).length)
    namesCache.set(m, names)
  }
  return names
}

/**
 * For a question asking for a name ("Which cities has Jon visited?", "Who gave her the
 * money?", "Where did she move from?"), 1 for an older unit naming something with a
 * capitalised word that opens no sentence and is neither a speaker's name, a day, a month
 * nor a word of the question: the turn saying "Rome" or "Matt Patterson", which shares no
 * word with the question. Other units, and every unit for other questions, 0.
 */
export function namesAsked(options: { query?: string } = {}): Scorer {
  return (view) => {
    // The asker's own "[date] Name: " opening aside.
    const query = (options.query ?? view.query ?? newestUserText(view)).replace(SPEAKER, '')
    const asks = ASKS_NAME.test(query)
    const known = new Set(query.toLowerCase().match(LETTER_RUNS))
    const last = view.unitCount - 1
    for (let u = 0; asks && u <= last; u++) known.add(newsOf(view.first(u))[0])
    return eachUnit(view, (u) => {
      if (!asks || u >= last) return 0
      for (let i = view.start(u); i < view.end(u); i++)
        for (const w of namesOf(view.message(i))) if (!known.has(w)) return 1
      return 0
    })
  }
}
