/**
 * gitleaks' token formats (generated into credential-rules.ts), run only where one of a
 * rule's literals is in the text, each rule compiled the first time it is needed; and the
 * looser forms the filter adds.
 */
import { TOKEN_RULES } from './credential-rules.js'
import { regexSpans, type Span } from './credential-text.js'

/** Each rule's literals (lowercase) and source: read on the first scan, not at import. */
let table: [string[], string][] | undefined

/** Every literal, longest first, as one case-insensitive alternation. */
let gate: RegExp | undefined

/** Each literal found so far and the rules of every literal inside it (itself included). */
const inside = new Map<string, number[]>()

/** The rules compiled so far, by index. */
const compiled: RegExp[] = []

/** A source's leading literal characters (after `\b`), when no quantifier follows them. */
const LEAD = /^(?:\\b)?((?:[\w=~-]|\\[./])+)(?![?*+{])/

/**
 * The rule table, a rule a line: its literals (left empty: its source's leading literal
 * characters), a tab, its source.
 */
function tokenRuleTable(): [string[], string][] {
  table ??= TOKEN_RULES.split('\n').map((line) => {
    const [literals, source = ''] = line.split('\t')
    const lead = LEAD.exec(source)?.[1]?.replaceAll('\\', '').toLowerCase()
    return [(literals || lead || '').split(' '), source]
  })
  return table
}

/**
 * For each rule, its literals (one of which every match holds), and when one is shorter than
 * four characters (`sk`, `s.`, `pat` occur in ordinary words) its own source, read
 * case-insensitively, to confirm them.
 */
export function tokenTriggers(): [string[], string?][] {
  return tokenRuleTable().map(([literals, source]) =>
    literals.some((l) => l.length < 4) ? [literals, source] : [literals],
  )
}

/** How many token rules are compiled so far, and the table as read (for tests). */
export const tokenRules = () => ({
  compiled: compiled.filter(Boolean).length,
  table: tokenRuleTable(),
})

/**
 * Spans of gitleaks' token formats. Only the rules one of whose literals the text holds (in
 * any case) run, each compiled the first time it does: every match of a rule holds one of its
 * literals (the generator reads them off the rule's source; credentials.test.ts checks them
 * on gitleaks' samples), so the gate drops no match. One pass finds the literals: at each
 * place the longest one there, which stands for those inside it too (the gate steps one
 * character on, so overlapping ones are seen).
 */
export function tokenSpans(text: string, out: Span[]): void {
  const rules = tokenRuleTable()
  gate ??= new RegExp(
    [...new Set(rules.flatMap(([l]) => l))]
      .sort((a, b) => b.length - a.length)
      .join('|')
      .replace(/[.*+?^${}()[\]\\/]/g, '\\$&'),
    'gi',
  )
  const run = new Set<number>()
  gate.lastIndex = 0
  for (let m = gate.exec(text); m; m = gate.exec(text)) {
    const found = m[0].toLowerCase()
    let ks = inside.get(found)
    if (!ks) {
      ks = []
      for (const [k, [literals]] of rules.entries())
        if (literals.some((l) => found.includes(l))) ks.push(k)
      inside.set(found, ks)
    }
    for (const k of ks) run.add(k)
    gate.lastIndex = m.index + 1
  }
  for (const k of run) {
    compiled[k] ??= new RegExp(rules[k]?.[1] as string, 'g')
    regexSpans(compiled[k], text, out)
  }
}

/**
 * Forms the library's earlier filter caught, looser than gitleaks' exact lengths, and
 * services' newer formats gitleaks' rules do not know yet (Tailscale, Vercel, Shopify's longer
 * keys, Cloudflare, Databricks, Groq, Linear, GitHub's app tokens with a JWT body, Slack hooks).
 */
export const LOOSE_TOKENS =
  /\bsk-[\w-]{8,}|\b[sr]k_(?:live|test)_\w+|\bgh[pousr]_[\w-]{20,}(?:\.[\w-]+){0,2}|\bxox[abprs]-[\w-]+|\bAKIA[0-9A-Z]{16}|\bAIza[\w-]{30,}|\beyJ[\w-]+\.[\w-]+\.[\w-]*|tskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{10,}|\bv(?:cp|ci|ca|cr|ck)_[A-Za-z0-9]{24,}|\bshp(?:ss|at|ca|pa)_[A-Za-z0-9]{20,}|\bcf(?:at|ut|k)_[A-Za-z0-9]{32,}|\bdapi[A-Za-z0-9]{32}(?:-\d+)?|\bgsk_[A-Za-z0-9]{40,}|\blin_(?:api|oauth)_[A-Za-z0-9]{32,}|hooks\.slack\.com\/(?:services|workflows|triggers)\/[\w/+-]{8,}/g
