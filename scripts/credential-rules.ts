/**
 * Builds the credential filter's token table from gitleaks' maintained rules (MIT licence),
 * and gitleaks' own true/false-positive samples as a test fixture.
 *
 * `npx tsx scripts/credential-rules.ts [path to a gitleaks git dir]` (default: the local
 * mirror). Reads `config/gitleaks.toml` and `cmd/generate/config/rules/*.go` at HEAD, writes:
 * - `src/messages/credential-rules.ts`: the token rules, RE2 converted to JS, as one regex;
 * - `src/messages/GITLEAKS-LICENSE` and `test/data/gitleaks/LICENSE`: gitleaks' licence;
 * - `test/data/gitleaks/samples.json`: each rule's treatment and its samples.
 *
 * Only rules keyed by a distinctive token format are compiled: gitleaks' "keyword = value"
 * rules are what the filter's structural key/value reading does, so their keywords are kept
 * as words that make a key a credential's name (`stripe_key`), not their regexes.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const gitDir = process.argv[2] ?? '/work/.mirror/gitleaks+gitleaks/repo'
const git = (...args: string[]) =>
  execFileSync('git', ['-C', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 })

const commit = git('rev-parse', 'HEAD').trim()
const toml = git('show', 'HEAD:config/gitleaks.toml')
const license = git('show', 'HEAD:LICENSE')

// ---------------------------------------------------------------------------------------
// gitleaks.toml: just enough TOML for `[[rules]]` id, regex, keywords, entropy, secretGroup.

interface TomlRule {
  id: string
  regex?: string
  keywords: string[]
  entropy?: number
  secretGroup?: number
}

function parseToml(text: string): TomlRule[] {
  const rules: TomlRule[] = []
  let rule: TomlRule | undefined
  let inRule = false
  const lines = text.split('\n')
  for (let n = 0; n < lines.length; n++) {
    let line = lines[n] as string
    // A multi-line array: its lines joined.
    if (/^\w+ = \[$/.test(line))
      while (n + 1 < lines.length && !line.endsWith(']')) line += (lines[++n] as string).trim()
    if (line.startsWith('[[rules]]')) {
      rule = { id: '', keywords: [] }
      rules.push(rule)
      inRule = true
      continue
    }
    if (line.startsWith('[')) {
      inRule = false // [[rules.allowlists]] and the global [allowlist]
      continue
    }
    if (!inRule || !rule) continue
    const m = /^(\w+) = (.*)$/.exec(line)
    if (!m) continue
    const [, key, raw = ''] = m
    if (key === 'id') rule.id = JSON.parse(raw) as string
    else if (key === 'regex') rule.regex = raw.replace(/^'''/, '').replace(/'''$/, '')
    else if (key === 'entropy') rule.entropy = Number(raw)
    else if (key === 'secretGroup') rule.secretGroup = Number(raw)
    else if (key === 'keywords') rule.keywords = JSON.parse(raw.replace(/,\]$/, ']')) as string[]
  }
  return rules
}

// ---------------------------------------------------------------------------------------
// RE2 -> JS. JS has no inline `(?i)`: letters under it become both cases, explicitly.

const POSIX: Record<string, string> = {
  '[:alnum:]': 'A-Za-z0-9',
  '[:alpha:]': 'A-Za-z',
  '[:digit:]': '0-9',
  '[:upper:]': 'A-Z',
  '[:lower:]': 'a-z',
}

/** A class body with both cases of its letters. */
function caseClass(body: string): string {
  let out = body
  const add: string[] = []
  for (const m of body.matchAll(/(\\.)|([A-Za-z])-([A-Za-z])|([A-Za-z])/g)) {
    if (m[1]) continue
    if (m[2] && m[3]) {
      const lower = m[2] >= 'a'
      const from = lower ? m[2].toUpperCase() : m[2].toLowerCase()
      const to = lower ? m[3].toUpperCase() : m[3].toLowerCase()
      if (!body.includes(`${from}-${to}`)) add.push(`${from}-${to}`)
    } else if (m[4]) {
      const other = m[4] === m[4].toLowerCase() ? m[4].toUpperCase() : m[4].toLowerCase()
      add.push(other)
    }
  }
  for (const a of add) if (!out.includes(a)) out += a
  return out
}

/** Go RE2 source to a JS source with the same meaning, case folding spelled out. */
export function toJs(re2: string): string {
  let out = ''
  const stack: boolean[] = [] // the fold state to restore at each `)`
  let fold = false
  let i = 0
  while (i < re2.length) {
    const c = re2[i] as string
    if (re2.startsWith('(?i)', i)) {
      fold = true
      i += 4
    } else if (re2.startsWith('(?i:', i) || re2.startsWith('(?-i:', i)) {
      stack.push(fold)
      fold = re2[i + 2] === 'i'
      out += '(?:'
      i += re2[i + 2] === 'i' ? 4 : 5
    } else if (re2.startsWith('(?:', i) || re2.startsWith('(?=', i) || re2.startsWith('(?!', i)) {
      stack.push(fold)
      out += re2.slice(i, i + 3)
      i += 3
    } else if (c === '(') {
      stack.push(fold)
      out += '(?:'
      i += 1
    } else if (c === ')') {
      fold = stack.pop() ?? false
      out += ')'
      i += 1
    } else if (c === '\\') {
      const next = re2[i + 1] as string
      if (next === 'z') out += '$'
      else if (next === 'x' && re2.startsWith('60', i + 2)) out += '`'
      else out += `\\${next}`
      i += next === 'x' && re2.startsWith('60', i + 2) ? 4 : 2
    } else if (c === '[') {
      let j = i + 1
      let body = ''
      if (re2[j] === '^') {
        body += '^'
        j++
      }
      if (re2[j] === ']') {
        body += '\\]'
        j++
      }
      while (j < re2.length && re2[j] !== ']') {
        const posix = Object.keys(POSIX).find((p) => re2.startsWith(p, j))
        if (posix) {
          body += POSIX[posix]
          j += posix.length
        } else if (re2[j] === '\\') {
          const e = re2[j + 1] as string
          if (e === 'x' && re2.startsWith('60', j + 2)) {
            body += '`'
            j += 4
          } else {
            body += `\\${e}`
            j += 2
          }
        } else if (re2[j] === '/') {
          body += '\\/'
          j++
        } else {
          body += re2[j]
          j++
        }
      }
      out += `[${fold ? caseClass(body) : body}]`
      i = j + 1
    } else if (c === '/') {
      out += '\\/'
      i += 1
    } else if (fold && /[A-Za-z]/.test(c)) {
      out += `[${c.toLowerCase()}${c.toUpperCase()}]`
      i += 1
    } else {
      out += c
      i += 1
    }
  }
  return out
}

// ---------------------------------------------------------------------------------------
// Which rules become token rules.

/** gitleaks' "keyword operator value" rules (GenerateSemiGenericRegex), read structurally. */
const OPERATOR = String.raw`(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`
/** gitleaks' end of a secret; the filter ends a token where no token character follows. */
const SUFFIX = String.raw`(?:[\x60'"\s;]|\\[nr]|$)`

/** Rules not compiled, and why. Those with the operator above are "structural" (not listed). */
const LEFT_OUT: Record<string, string> = {
  'generic-api-key': 'structural: a value after a credential key',
  'private-key': 'structural: PEM/PGP blocks, terminated or not',
  'curl-auth-header': 'structural: the Authorization header line',
  'curl-auth-user': 'structural: curl -u/--user user:password',
  'hashicorp-tf-password': 'structural: a value after a password key',
  'nuget-config-password': 'structural: <add key="Password" value="...">',
  'freemius-secret-key': 'structural: a value after a secret_key key',
  'kubernetes-secret-yaml': 'left out: a multi-line YAML rule, (?s) with lazy spans',
  'sidekiq-secret': 'structural: a value after a key naming the Sidekiq gem server',
  'sidekiq-sensitive-url': 'structural: URL userinfo',
  'jwt-base64': 'left out: 2 KB of alternatives; the base64 blob rule covers its long values',
  'facebook-access-token':
    'left out: starts with 15 digits and no literal (every long number would be a candidate)',
  'sourcegraph-access-token':
    'left out: its third alternative is any 40 hex digits, i.e. every git commit id',
  'azure-ad-client-secret': 'left out: no literal prefix; its boundary needs a lookbehind',
  'pkcs12-file': 'left out: a file-path rule, no regex',
}

interface Taken {
  id: string
  js: string
}

function tokenRule(rule: TomlRule): Taken | string {
  const re = rule.regex
  if (!re) return 'left out: no regex'
  const why = LEFT_OUT[rule.id]
  if (why) return why
  if (re.includes(OPERATOR))
    return 'structural: keyword = value (its keywords name credential keys)'
  let body = re
  let suffix = ''
  if (body.endsWith(SUFFIX)) {
    body = body.slice(0, -SUFFIX.length)
    suffix = '(?![\\w-])' // looser than gitleaks: `,`, `&`, `)` end a token too
  }
  // `\b(secret)` or `(?i)\b(secret)`: the group is the whole match once the suffix is gone.
  const m = /^((?:\(\?i\))?)\\b\((.*)\)$/.exec(body)
  if (m && balanced(m[2] ?? '')) body = `${m[1]}\\b${m[2]}`
  return { id: rule.id, js: unwrapGroups(toJs(body)) + suffix }
}

/**
 * A source without the non-capturing groups that change nothing: those holding no top-level
 * `|` and not repeated (`\b(?:pat[a-z]{14})` is `\bpat[a-z]{14}`).
 */
export function unwrapGroups(src: string): string {
  const open: number[] = []
  const bars = new Set<number>() // groups (by their opening index) with a top-level `|`
  for (let i = 0; i < src.length; i++) {
    const c = src[i]
    if (c === '\\') i++
    else if (c === '[') {
      for (i++; src[i] !== ']'; i++) if (src[i] === '\\') i++
    } else if (c === '(') open.push(i)
    else if (c === '|' && open.length > 0) bars.add(open[open.length - 1] as number)
    else if (c === ')') {
      const at = open.pop() as number
      if (src.startsWith('(?:', at) && !bars.has(at) && !/[?*+{]/.test(src[i + 1] ?? ''))
        return unwrapGroups(src.slice(0, at) + src.slice(at + 3, i) + src.slice(i + 1))
    }
  }
  return src
}

/** Whether the parentheses of a source balance (so an outer pair may be dropped). */
function balanced(src: string): boolean {
  let depth = 0
  for (let i = 0; i < src.length; i++) {
    if (src[i] === '\\') i++
    else if (src[i] === '(') depth++
    else if (src[i] === ')' && --depth < 0) return false
  }
  return depth === 0
}

const rules = parseToml(toml)
const taken: Taken[] = []
const treatment: Record<string, string> = {}
const serviceWords = new Set<string>()
for (const rule of rules) {
  const t = tokenRule(rule)
  if (typeof t === 'string') {
    treatment[rule.id] = t
    if (t.startsWith('structural: keyword'))
      for (const k of rule.keywords) if (/^[a-z][a-z0-9]+$/.test(k)) serviceWords.add(k)
  } else {
    // Every converted rule must compile, and the table is one alternation of them.
    new RegExp(t.js)
    taken.push(t)
    treatment[rule.id] = 'token'
  }
}
// Service names a key is made of in gitleaks' samples (`github_api_token`), beyond keywords.
for (const w of ['github', 'gitlab', 'slack', 'stripe', 'openai', 'anthropic', 'aws', 'gcp'])
  serviceWords.add(w)

// ---------------------------------------------------------------------------------------
// Required literals: for each rule, strings (lowercase) one of which every match holds. The
// filter runs a rule only on text holding one of them, so most text runs none and a rule is
// compiled the first time its literal is seen. Read from the JS source: literal characters,
// classes of at most LITERAL_CLASS characters (once lowercased: `[xX]` is `x`), groups of a
// few exact alternatives, and repeats of a fixed count; zero-width parts (`\b`, lookarounds)
// keep their neighbours adjacent.

const LITERAL_CLASS = 3
const MAX_SET = 32

interface Item {
  /** The exact strings it matches (lowercase), when few; else undefined. */
  exact?: string[]
  /** Strings one of which every match holds, when known. */
  required?: string[]
  zeroWidth?: boolean
  min: number
  max: number
}

function better(a: string[] | undefined, b: string[] | undefined): string[] | undefined {
  if (!a || a.length === 0) return b
  if (!b || b.length === 0) return a
  const ma = Math.min(...a.map((x) => x.length))
  const mb = Math.min(...b.map((x) => x.length))
  return ma !== mb ? (ma > mb ? a : b) : a.length <= b.length ? a : b
}

function cross(a: string[], b: string[]): string[] | undefined {
  if (a.length * b.length > MAX_SET) return undefined
  return [...new Set(a.flatMap((x) => b.map((y) => x + y)))]
}

/** The characters a class body matches, lowercase, when at most LITERAL_CLASS; else undefined. */
function classSet(body: string): string[] | undefined {
  if (body.startsWith('^')) return undefined
  const chars = new Set<string>()
  for (let j = 0; j < body.length; j++) {
    let c = body[j] as string
    if (c === '\\') {
      c = body[++j] as string
      if (/[dwsDWSbB]/.test(c)) return undefined
      if (c === 'n') c = '\n'
      else if (c === 'r') c = '\r'
      else if (c === 't') c = '\t'
    }
    if (body[j + 1] === '-' && j + 2 < body.length) {
      let to = body[j + 2] as string
      if (to === '\\') to = body[j + 3] as string
      const n = to.charCodeAt(0) - c.charCodeAt(0)
      if (n < 0 || n >= LITERAL_CLASS * 2) return undefined
      for (let k = c.charCodeAt(0); k <= to.charCodeAt(0); k++)
        chars.add(String.fromCharCode(k).toLowerCase())
      j += body[j + 2] === '\\' ? 3 : 2
    } else chars.add(c.toLowerCase())
    if (chars.size > LITERAL_CLASS) return undefined
  }
  return [...chars]
}

/** Required literals of a JS regex source (the dialect toJs writes). */
export function requiredLiterals(src: string): string[] | undefined {
  let i = 0
  function alternation(): Item {
    const alts: Item[][] = [sequence()]
    while (src[i] === '|') {
      i++
      alts.push(sequence())
    }
    const summaries = alts.map(summarize)
    const exact = summaries.every((s) => s.exact)
      ? [...new Set(summaries.flatMap((s) => s.exact as string[]))]
      : undefined
    const required = summaries.every((s) => s.required?.length)
      ? [...new Set(summaries.flatMap((s) => s.required as string[]))]
      : undefined
    return {
      exact: exact && exact.length <= MAX_SET ? exact : undefined,
      required: required && required.length <= MAX_SET ? required : undefined,
      min: 1,
      max: 1,
    }
  }
  function sequence(): Item[] {
    const items: Item[] = []
    while (i < src.length && src[i] !== '|' && src[i] !== ')') {
      const c = src[i] as string
      let item: Item
      if (c === '(') {
        const look = /^\(\?(?:=|!|<=|<!)/.test(src.slice(i))
        i += src.startsWith('(?<', i) ? 4 : src.startsWith('(?', i) ? 3 : 1
        const inner = alternation()
        i++ // ')'
        item = look ? { zeroWidth: true, min: 1, max: 1 } : inner
      } else if (c === '[') {
        let j = i + 1
        if (src[j] === '^') j++
        if (src[j] === ']') j++
        while (src[j] !== ']') j += src[j] === '\\' ? 2 : 1
        const set = classSet(src.slice(i + 1, j))
        item = { exact: set, required: set, min: 1, max: 1 }
        i = j + 1
      } else if (c === '\\') {
        const e = src[i + 1] as string
        i += 2
        if (e === 'b' || e === 'B') item = { zeroWidth: true, min: 1, max: 1 }
        else if (/[dwsDWS]/.test(e)) item = { min: 1, max: 1 }
        else {
          const ch = e === 'n' ? '\n' : e === 'r' ? '\r' : e === 't' ? '\t' : e.toLowerCase()
          if (/[0-9xuc]/.test(e)) throw new Error(`unread escape \\${e} in ${src}`)
          item = { exact: [ch], required: [ch], min: 1, max: 1 }
        }
      } else if (c === '^' || c === '$') {
        i++
        item = { zeroWidth: true, min: 1, max: 1 }
      } else if (c === '.') {
        i++
        item = { min: 1, max: 1 }
      } else {
        i++
        item = { exact: [c.toLowerCase()], required: [c.toLowerCase()], min: 1, max: 1 }
      }
      const q = /^(?:\{(\d+)(?:(,)(\d*))?\}|[?*+])\??/.exec(src.slice(i))
      if (q) {
        i += q[0].length
        const kind = q[0].replace(/\?$/, '') || '?'
        if (kind === '?') [item.min, item.max] = [0, 1]
        else if (kind === '*') [item.min, item.max] = [0, Infinity]
        else if (kind === '+') [item.min, item.max] = [1, Infinity]
        else {
          item.min = Number(q[1])
          item.max = q[2] ? (q[3] ? Number(q[3]) : Infinity) : item.min
        }
      }
      items.push(item)
    }
    return items
  }
  /** A sequence's exact strings (when all its items are exact and fixed) and best literals. */
  function summarize(items: Item[]): Item {
    let run: string[] | undefined = ['']
    let best: string[] | undefined
    let exact: string[] | undefined = ['']
    const close = () => {
      if (run && !run.includes('')) best = better(best, run)
      run = ['']
    }
    for (const it of items) {
      if (it.zeroWidth) continue
      if (it.min === 0) {
        exact = undefined
        close()
        continue
      }
      if (it.required && !(it.exact && it.min === it.max)) best = better(best, it.required)
      if (it.exact && it.min <= 8) {
        let times: string[] | undefined = ['']
        for (let k = 0; k < it.min && times; k++) times = cross(times, it.exact)
        const fixed = it.min === it.max
        exact = exact && times && fixed ? cross(exact, times) : undefined
        run = run && times ? cross(run, times) : undefined
        if (!run) run = times ?? ['']
        if (!fixed) close()
      } else {
        exact = undefined
        close()
      }
    }
    close()
    return { exact, required: best, min: 1, max: 1 }
  }
  const top = alternation()
  if (i !== src.length) throw new Error(`unread source at ${i}: ${src}`)
  const found = top.required ?? top.exact
  return found?.every((s) => s.length > 0) ? found : undefined
}

const literals = taken.map((t) => requiredLiterals(t.js))
/** credentials.ts's reading of an empty literal column: the source's leading literal. */
const LEAD = /^(?:\\b)?((?:[\w=~-]|\\[./])+)(?![?*+{])/
// One rule a line: its literals (left empty when they are the source's leading literal), a
// tab, its source (in a String.raw template: a backtick is written \x60, read as one).
const table = taken
  .map((t, k) => {
    const lits = literals[k]
    if (!lits) throw new Error(`${t.id}: no literal every match holds (${t.js})`)
    for (const l of lits)
      if (/[\s`|]|\$\{/.test(l)) throw new Error(`${t.id}: literal ${JSON.stringify(l)}`)
    if (/[\n\t]|\$\{/.test(t.js)) throw new Error(`${t.id}: source ${t.js}`)
    const lead = LEAD.exec(t.js)?.[1]?.replaceAll('\\', '').toLowerCase()
    const column = lits.length === 1 && lits[0] === lead ? '' : lits.join(' ')
    return `${column}\t${t.js.replaceAll('`', '\\x60')}`
  })
  .join('\n')
const tokenSource = taken.map((t) => t.js).join('|')
const structural = Object.entries(treatment).filter(([, t]) => t.startsWith('structural'))
const leftOut = Object.entries(treatment).filter(([, t]) => t.startsWith('left out'))

const header = `/**
 * GENERATED by scripts/credential-rules.ts from gitleaks (https://github.com/gitleaks/gitleaks),
 * commit ${commit}, config/gitleaks.toml. Do not edit by hand.
 *
 * gitleaks is MIT licensed, Copyright (c) 2019 Zachary Rice: see ./GITLEAKS-LICENSE.
 * Its regexes are converted from Go RE2 to JS (inline \`(?i)\` spelled out as both cases,
 * groups made non-capturing, gitleaks' end-of-secret boundary loosened to "no token character
 * follows").
 *
 * Taken as token rules (${taken.length}): ${wrap(taken.map((t) => t.id).join(', '))}
 *
 * Covered structurally (${structural.length}): the "keyword = value" rules are read by the
 * key/value scanner of credentials.ts, their keywords kept below as service words: ${wrap(
   structural.map(([id]) => id).join(', '),
 )}
 *
 * Left out (${leftOut.length}):
${leftOut.map(([id, why]) => ` * - ${id}: ${why.replace(/^left out: /, '')}`).join('\n')}
 */`

function wrap(s: string): string {
  const lines: string[] = []
  let line = ''
  for (const word of s.split(' ')) {
    if (line.length + word.length > 90) {
      lines.push(line.trimEnd())
      line = ''
    }
    line += `${word} `
  }
  lines.push(line.trimEnd())
  return lines.join('\n * ')
}

const file = `${header}

/**
 * Credential token formats (gitleaks' prefix-keyed rules), the whole match being the token.
 * One rule a line: the literals one of which every match holds (lowercase, space-separated;
 * none written: the source's leading literal characters), a tab, the rule's source. Kept as
 * text: credentials.ts compiles a rule the first time a text holds one of its literals, so
 * importing the filter compiles none.
 */
export const TOKEN_RULES = String.raw\`${table}\`

/** Service names from gitleaks' keyword rules: \`<service>_key\` names a credential (space-separated). */
export const SERVICE_WORDS = ${JSON.stringify([...serviceWords].sort().join(' '))}
`
writeFileSync(`${root}src/messages/credential-rules.ts`, file)
writeFileSync(`${root}src/messages/GITLEAKS-LICENSE`, license)

// ---------------------------------------------------------------------------------------
// Samples: the tps/fps lists of each rule's Go source, evaluated where they are literal or
// built from the helpers, with secrets.NewSecret(regex) drawn deterministically.

const files = git('ls-tree', '-r', '--name-only', 'HEAD', 'cmd/generate/config/rules/')
  .split('\n')
  .filter((p) => p.endsWith('.go') && !p.endsWith('_test.go'))

const UNKNOWN: unique symbol = Symbol('unknown')
type Value = string | Value[] | typeof UNKNOWN

let seed = 1
function random(n: number): number {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
  return (seed >>> 16) % n
}

/** A string matching a simple regex: literals, classes, groups (first branch), counts. */
function sample(re: string): string | typeof UNKNOWN {
  let i = 0
  const src = re.replace(/^\(\?i\)/, '')
  function seq(): string[] {
    const parts: string[] = []
    while (i < src.length && src[i] !== ')' && src[i] !== '|') {
      let atom: () => string
      const c = src[i] as string
      if (c === '(') {
        i++
        if (src.startsWith('?:', i)) i += 2
        const branches: string[][] = [seq()]
        while (src[i] === '|') {
          i++
          branches.push(seq())
        }
        i++ // ')'
        const first = branches[0] ?? []
        atom = () => first.join('')
      } else if (c === '[') {
        const end = src.indexOf(']', i + 2)
        const chars = classChars(src.slice(i + 1, end))
        i = end + 1
        atom = () => chars[random(chars.length)] ?? 'a'
      } else if (c === '\\') {
        const e = src[i + 1] as string
        i += 2
        const chars =
          e === 'd'
            ? '0123456789'
            : e === 'w'
              ? 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789'
              : e
        atom = () => chars[random(chars.length)] ?? e
      } else if (c === '.') {
        i++
        atom = () => 'x'
      } else {
        i++
        atom = () => c
      }
      let count = 1
      const q = /^(?:\{(\d+)(?:,(\d*))?\}|[?*+])/.exec(src.slice(i))
      if (q) {
        i += q[0].length
        if (q[0] === '?' || q[0] === '*') count = 0
        else if (q[0] === '+') count = 1
        else count = Math.max(Number(q[1]), q[2] ? Math.min(Number(q[2]), Number(q[1]) + 8) : 0)
        if (q[0] === '?') count = 1
      }
      for (let k = 0; k < count; k++) parts.push(atom())
    }
    return parts
  }
  try {
    const out = seq()
    return i >= src.length ? out.join('') : UNKNOWN
  } catch {
    return UNKNOWN
  }
}

function classChars(body: string): string {
  let out = ''
  for (let j = 0; j < body.length; j++) {
    let c = body[j] as string
    if (c === '\\') {
      j++
      c = body[j] as string
      if (c === 'd') {
        out += '0123456789'
        continue
      }
      if (c === 'w') {
        out += 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'
        continue
      }
    }
    if (body[j + 1] === '-' && j + 2 < body.length) {
      const to = body[j + 2] as string
      for (let k = c.charCodeAt(0); k <= to.charCodeAt(0); k++) out += String.fromCharCode(k)
      j += 2
    } else out += c
  }
  return out
}

// The samples' templates (utils.GenerateSampleSecrets), from generate.go itself.
const generateGo = git('show', 'HEAD:cmd/generate/config/utils/generate.go')
const helpers: Record<string, (args: Value[]) => Value> = {
  'utils.Numeric': ([n]) => (typeof n === 'string' ? `[0-9]{${n}}` : UNKNOWN),
  'utils.Hex': ([n]) => (typeof n === 'string' ? `[a-f0-9]{${n}}` : UNKNOWN),
  'utils.AlphaNumeric': ([n]) => (typeof n === 'string' ? `[a-z0-9]{${n}}` : UNKNOWN),
  'utils.AlphaNumericExtendedShort': ([n]) =>
    typeof n === 'string' ? `[a-z0-9_-]{${n}}` : UNKNOWN,
  'utils.AlphaNumericExtended': ([n]) => (typeof n === 'string' ? `[a-z0-9=_\\-]{${n}}` : UNKNOWN),
  'utils.AlphaNumericExtendedLong': ([n]) =>
    typeof n === 'string' ? `[a-z0-9\\/=_\\+\\-]{${n}}` : UNKNOWN,
  'utils.Hex8_4_4_4_12': () => '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
  'secrets.NewSecret': ([re]) => (typeof re === 'string' ? sample(re) : UNKNOWN),
  'utils.GenerateSampleSecret': ([id, s]) =>
    typeof id === 'string' && typeof s === 'string' ? `${id}_api_token = "${s}"` : UNKNOWN,
  'utils.GenerateSampleSecrets': ([id, s]) =>
    typeof id === 'string' && typeof s === 'string'
      ? templates.map((t) =>
          t.replaceAll('{i}', id).replaceAll('{I}', id.toUpperCase()).replaceAll('{s}', s),
        )
      : UNKNOWN,
  'fmt.Sprintf': ([f, ...rest]) => {
    if (typeof f !== 'string' || rest.some((r) => typeof r !== 'string')) return UNKNOWN
    let k = 0
    return f.replace(/%[sv]/g, () => rest[k++] as string)
  },
  'strings.Repeat': ([s, n]) =>
    typeof s === 'string' && typeof n === 'string' ? s.repeat(Number(n)) : UNKNOWN,
  append: ([a, ...rest]) => {
    if (!Array.isArray(a)) return UNKNOWN
    const out: Value[] = [...a]
    for (const r of rest as Value[])
      if (Array.isArray(r)) out.push(...r)
      else out.push(r)
    return out
  },
}

interface Token {
  kind: 'str' | 'ident' | 'num' | 'punct'
  text: string
  value: string
}

class Lexer {
  private i = 0
  private buffered: Token | undefined
  constructor(private readonly src: string) {}
  get pos(): number {
    return this.i
  }
  peek(): Token | undefined {
    this.buffered ??= this.read()
    return this.buffered
  }
  next(): Token | undefined {
    const t = this.peek()
    this.buffered = undefined
    return t
  }
  private read(): Token | undefined {
    const s = this.src
    for (;;) {
      while (this.i < s.length && /\s/.test(s[this.i] as string)) this.i++
      if (s.startsWith('//', this.i)) {
        const nl = s.indexOf('\n', this.i)
        this.i = nl < 0 ? s.length : nl
      } else if (s.startsWith('/*', this.i)) {
        const end = s.indexOf('*/', this.i)
        this.i = end < 0 ? s.length : end + 2
      } else break
    }
    if (this.i >= s.length) return undefined
    const c = s[this.i] as string
    if (c === '`') {
      const end = s.indexOf('`', this.i + 1)
      const value = s.slice(this.i + 1, end)
      this.i = end + 1
      return { kind: 'str', text: value, value }
    }
    if (c === '"') {
      let j = this.i + 1
      let value = ''
      while (j < s.length && s[j] !== '"') {
        if (s[j] === '\\') {
          const e = s[j + 1] as string
          const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"' }
          if (e === 'u' || e === 'x') {
            const len = e === 'u' ? 4 : 2
            value += String.fromCharCode(Number.parseInt(s.slice(j + 2, j + 2 + len), 16))
            j += 2 + len
            continue
          }
          value += map[e] ?? e
          j += 2
        } else value += s[j++]
      }
      const text = s.slice(this.i, j + 1)
      this.i = j + 1
      return { kind: 'str', text, value }
    }
    const id = /^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*/.exec(s.slice(this.i, this.i + 200))
    if (id) {
      this.i += id[0].length
      return { kind: 'ident', text: id[0], value: id[0] }
    }
    const num = /^\d+/.exec(s.slice(this.i, this.i + 40))
    if (num) {
      this.i += num[0].length
      return { kind: 'num', text: num[0], value: num[0] }
    }
    const p = ['...', ':=', '[]'].find((x) => s.startsWith(x, this.i)) ?? c
    this.i += p.length
    return { kind: 'punct', text: p, value: p }
  }
}

function readTemplates(): string[] {
  const templates: string[] = []
  const block = generateGo.slice(generateGo.indexOf('samples := map[string]string{'))
  const body = block.slice(0, block.indexOf('\n\t}\n'))
  const lex = new Lexer(body.slice(body.indexOf('{') + 1))
  for (;;) {
    const t = lex.next()
    if (!t) break
    if (t.kind === 'str' && lex.peek()?.text === ':') {
      lex.next()
      const v = lex.next()
      if (v?.kind === 'str') templates.push(v.value)
    }
  }
  return templates
}

const templates = readTemplates()

/** Evaluates one Go expression (strings, +, helper calls, []string/map literals). */
function expr(lex: Lexer, env: Map<string, Value>): Value {
  let v = term(lex, env)
  while (lex.peek()?.text === '+') {
    lex.next()
    const w = term(lex, env)
    v = typeof v === 'string' && typeof w === 'string' ? v + w : UNKNOWN
  }
  return v
}

function term(lex: Lexer, env: Map<string, Value>): Value {
  const t = lex.next()
  if (!t) return UNKNOWN
  if (t.kind === 'str' || t.kind === 'num') return t.value
  if (t.text === '(') {
    const v = expr(lex, env)
    lex.next()
    return v
  }
  if (t.text === '[]' || t.text === 'map') {
    // []string{...} or map[string]string{...}: the elements, or the map's values.
    while (lex.peek() && lex.peek()?.text !== '{') lex.next()
    lex.next()
    const out: Value[] = []
    while (lex.peek() && lex.peek()?.text !== '}') {
      const v = expr(lex, env)
      if (lex.peek()?.text === ':') {
        lex.next()
        out.push(expr(lex, env))
      } else out.push(v)
      if (lex.peek()?.text === ',') lex.next()
    }
    lex.next()
    return out
  }
  if (t.kind === 'ident') {
    if (lex.peek()?.text !== '(') return env.get(t.text) ?? UNKNOWN
    lex.next()
    const args: Value[] = []
    while (lex.peek() && lex.peek()?.text !== ')') {
      args.push(expr(lex, env))
      if (lex.peek()?.text === '...') lex.next()
      if (lex.peek()?.text === ',') lex.next()
    }
    lex.next()
    const f = helpers[t.text]
    return f ? f(args) : UNKNOWN
  }
  return UNKNOWN
}

interface RuleSamples {
  id: string
  treatment: string
  tps: string[]
  fps: string[]
  /** Samples gitleaks builds with helpers this script cannot evaluate. */
  skipped: number
}

const samples: RuleSamples[] = []
function flatten(v: Value, out: string[]): number {
  if (v === UNKNOWN) return 1
  if (typeof v === 'string') {
    out.push(v)
    return 0
  }
  let skipped = 0
  for (const x of v) skipped += flatten(x, out)
  return skipped
}

for (const path of files) {
  const go = git('show', `HEAD:${path}`)
  for (const fn of go.split(/\nfunc /).slice(1)) {
    const id = /RuleID:\s*"([^"]+)"/.exec(fn)?.[1]
    if (!id) continue
    seed = [...id].reduce((a, c) => (a * 31 + c.charCodeAt(0)) & 0xffff, 7)
    const env = new Map<string, Value>()
    const entry: RuleSamples = {
      id,
      treatment: treatment[id] ?? 'not in gitleaks.toml',
      tps: [],
      fps: [],
      skipped: 0,
    }
    // Statements `name := expr` / `name = expr`, evaluated in order.
    const lex = new Lexer(fn)
    for (;;) {
      const t = lex.next()
      if (!t) break
      if (t.kind !== 'ident' || t.text.includes('.')) continue
      const op = lex.peek()
      if (op?.text !== ':=' && op?.text !== '=') continue
      lex.next()
      if (t.text === 'r' || t.text === '_') continue
      const v = expr(lex, env)
      env.set(t.text, v)
    }
    for (const [name, list] of [
      ['tps', entry.tps],
      ['fps', entry.fps],
    ] as const) {
      const v = env.get(name)
      if (v === undefined) continue
      const skipped = flatten(v, list)
      if (name === 'tps') entry.skipped += skipped
    }
    samples.push(entry)
  }
}

// The literals are what the filter gates a rule on: every sample a rule matches (of any rule)
// must hold one of them, or the reading above is wrong.
for (const [k, t] of taken.entries()) {
  const re = new RegExp(t.js, 'g')
  const lits = literals[k]
  if (!lits) continue
  for (const s of samples)
    for (const tp of [...s.tps, ...s.fps])
      for (const m of tp.matchAll(re)) {
        const hit = m[0].toLowerCase()
        if (!lits.some((l) => hit.includes(l)))
          throw new Error(`${t.id}: match ${JSON.stringify(m[0])} holds none of ${lits.join(' ')}`)
      }
}

mkdirSync(`${root}test/data/gitleaks`, { recursive: true })
writeFileSync(`${root}test/data/gitleaks/LICENSE`, license)
writeFileSync(
  `${root}test/data/gitleaks/samples.json`,
  `${JSON.stringify({ source: `gitleaks ${commit}`, licence: 'MIT, see ./LICENSE', rules: samples }, null, 1)}\n`,
)

// The generated files in the repository's style, so a rerun changes only what changed.
execFileSync(
  `${root}node_modules/.bin/biome`,
  ['check', '--write', 'src/messages/credential-rules.ts', 'test/data/gitleaks/samples.json'],
  {
    cwd: root,
    stdio: 'ignore',
  },
)

const tps = samples.reduce((n, s) => n + s.tps.length, 0)
const fps = samples.reduce((n, s) => n + s.fps.length, 0)
const skipped = samples.reduce((n, s) => n + s.skipped, 0)
console.log(
  `gitleaks ${commit.slice(0, 12)}: ${rules.length} rules, ${taken.length} token rules, ` +
    `${structural.length} structural, ${leftOut.length} left out; samples of ${samples.length} rules: ` +
    `${tps} tps (${skipped} not evaluated), ${fps} fps; table ${tokenSource.length} chars`,
)
