/**
 * Builds `secretlint.json` from a checkout of secretlint (MIT): its rule packages' snapshot
 * fixtures, `packages/@secretlint/secretlint-rule-<name>/test/snapshots/<case>/`, each an input
 * and the `output.json` the rule is expected to give (its findings, with their ranges).
 *
 *   npx tsx test/credentials/import-secretlint.ts <secretlint checkout> <commit>
 *
 * A finding is a true positive; the part of it that must be hidden is narrowed where the
 * finding spans more than the secret (a URL's password, not its scheme and host; a key's value,
 * not its name; a PEM block's body). A fixture whose name starts with `ok.` (or a placeholder
 * case), run without options, with no finding, is a negative.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

interface Finding {
  messageId: string
  range: [number, number]
}
interface Output {
  messages: Finding[]
  sourceContent?: string
}

/** Rules left out, and why. */
const LEFT_OUT: Record<string, string> = {
  example: 'the rule template: it flags the word SECRET',
  'filter-comments': 'tests comment directives over a configured pattern, not a secret format',
  pattern: 'user-configured patterns: the findings follow each fixture’s configuration',
  'no-dotenv': 'flags a file by its name (.env), not a value',
  'no-homedir': 'flags home-directory paths, not credentials',
  'no-k8s-kind-secret': 'flags a manifest’s kind, its fixtures give no finding ranges',
}

/** Findings that are identifiers rather than secrets: kept, but not counted as true positives. */
const IDENTIFIERS: Record<string, string> = {
  AWSAccountID: 'an AWS account number, an identifier (opt-in in secretlint)',
  AzureTenantId: 'a tenant UUID, an identifier',
  AzureClientId: 'an application (client) UUID, an identifier',
}

/** The secret inside a finding: [offset within the finding, length]. */
function narrow(messageId: string, flagged: string): [number, number] {
  const url = /^[a-z][a-z0-9+.-]*:\/\/|jdbc:[a-z]+:\/\//i.exec(flagged)
  if (url && /BasicAuth|Connection|PackageJSON_xOauthToken|IncomingWebhook/.test(messageId)) {
    const start = url.index + url[0].length
    if (messageId === 'IncomingWebhook') {
      const at = flagged.indexOf('/services/') + '/services/'.length
      return [at, flagged.length - at]
    }
    const slash = flagged.indexOf('/', start)
    const authority = flagged.slice(start, slash < 0 ? flagged.length : slash)
    const end = start + authority.lastIndexOf('@')
    const colon = flagged.indexOf(':', start)
    // `https://<token>:x-oauth-basic@github.com`: the user part is the token.
    if (flagged.slice(colon + 1, end) === 'x-oauth-basic') return [start, colon - start]
    if (messageId === 'PackageJSON_xOauthToken') return [start, flagged.length - start]
    return [colon + 1, end - colon - 1]
  }
  if (messageId === 'PrivateKey' || messageId === 'PrivateKeyJSON') {
    const begin = /-----BEGIN [A-Z ]*PRIVATE KEY-----(?:\\n|\r?\n)/.exec(flagged)
    const end = flagged.indexOf('-----END')
    if (begin && end > 0) {
      const s = begin.index + begin[0].length
      let e = end
      while (/[\s\\n]/.test(flagged[e - 1] ?? '') && e > s) {
        if (flagged.slice(e - 2, e) === '\\n') e -= 2
        else if (/\s/.test(flagged[e - 1] ?? '')) e--
        else break
      }
      return [s, e - s]
    }
  }
  if (/SecretAccessKey|_authToken|ClientSecret/.test(messageId)) {
    const m = /(?::=|[:=])\s*["']?([^"'\s]+)["']?\s*$/.exec(flagged)
    if (m?.[1]) return [flagged.lastIndexOf(m[1]), m[1].length]
  }
  return [0, flagged.length]
}

const [root, commit] = process.argv.slice(2)
if (!root || !commit) throw new Error('usage: import-secretlint.ts <checkout> <commit>')
const base = join(root, 'packages/@secretlint')
const positives: unknown[] = []
const identifiers: unknown[] = []
const negatives: unknown[] = []
const skipped: string[] = []
for (const pkg of readdirSync(base).sort()) {
  if (!pkg.startsWith('secretlint-rule-') || pkg.includes('preset')) continue
  const rule = pkg.slice('secretlint-rule-'.length)
  const dir = join(base, pkg, 'test/snapshots')
  if (LEFT_OUT[rule] || !existsSync(dir)) continue
  for (const fixture of readdirSync(dir).sort()) {
    const out = join(dir, fixture, 'output.json')
    if (!existsSync(out)) continue
    const o = JSON.parse(readFileSync(out, 'utf8')) as Output
    const text = o.sourceContent
    const where = `${rule}/${fixture}`
    // Binary inputs (PKCS#12 files) are not text a conversation holds.
    if (text === undefined || [...text].some((c) => c < '\t' || (c > '\r' && c < ' '))) {
      skipped.push(`${where}: binary input`)
      continue
    }
    const configured = readdirSync(join(dir, fixture)).some(
      (f) => f === '.secretlintrc.json' || f === 'options.ts',
    )
    if (o.messages.length === 0) {
      if (configured) skipped.push(`${where}: no finding under a configuration`)
      else if (fixture.startsWith('ng.')) skipped.push(`${where}: an ng fixture with no finding`)
      else negatives.push({ id: where, rule, text })
      continue
    }
    const secrets: unknown[] = []
    const ids: unknown[] = []
    for (const m of o.messages) {
      const flagged = text.slice(m.range[0], m.range[1])
      const [off, len] = narrow(m.messageId, flagged)
      const at = m.range[0] + off
      // Some findings' ranges stop inside the value (`wJalrXUtnFEMI/K7` of a 40-character
      // key): the secret runs to the end of its token in the text.
      let end = at + len
      if (/SecretAccessKey|_authToken|ClientSecret|xOauthToken/.test(m.messageId))
        while (end < text.length && /[A-Za-z0-9+/=_.~-]/.test(text[end] as string)) end++
      const finding = {
        rule: `${rule}/${m.messageId}`,
        at,
        value: text.slice(at, end),
        flagged: [m.range[0], m.range[1]],
      }
      const why = IDENTIFIERS[m.messageId]
      if (why) ids.push({ ...finding, why })
      else secrets.push(finding)
    }
    if (secrets.length > 0) positives.push({ id: where, text, secrets })
    if (ids.length > 0) identifiers.push({ id: where, text, identifiers: ids })
  }
}
const corpus = {
  source: `secretlint/secretlint ${commit}, packages/@secretlint/secretlint-rule-*/test/snapshots`,
  licence: 'MIT, see ./SECRETLINT-LICENSE',
  leftOut: { rules: LEFT_OUT, fixtures: skipped },
  positives,
  identifiers,
  negatives,
}
writeFileSync(
  new URL('./secretlint.json', import.meta.url),
  `${JSON.stringify(corpus, null, 1).replace(/\n\s+(\d+),?\n\s+(\d+)\n\s+\]/g, '$1, $2]')}\n`,
)
console.log(
  `${positives.length} positives, ${identifiers.length} identifiers, ${negatives.length} negatives, ${skipped.length} fixtures skipped`,
)
