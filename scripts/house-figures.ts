/**
 * Figures of the source's shape (`src/`, tests left out), printed by `npm run figures`
 * (`--json` prints one JSON line). What each figure means:
 * - files, lines: `.ts` files under `src/` that are not tests or generated tables, and their lines.
 * - over 300: files longer than 300 lines.
 * - casts: `as T` expressions outside comments and strings (`as const` and import renames not counted).
 * - circles: groups of files that import each other in a loop (static imports and `export … from`,
 *   type-only ones included: a type tie is still a tie a reader must hold).
 * - up-arrows: imports inside `src/providers/` from a file to one on a higher layer of
 *   `PROVIDER_LAYERS` below, and between folders of `src/` against `SRC_LAYERS` (a lower
 *   layer never imports a higher one). Every file is on a layer: one that is not is listed
 *   as unlayered (a new folder is placed in `SRC_LAYERS` before it counts).
 * - root exports: the runtime names `src/index.ts` exports; `@deprecated` marks left in src/.
 * - option names: each option a fit, a context or a named strategy takes (`FIT_OPTIONS`,
 *   `CUT_OPTIONS`, `CONTEXT_OPTIONS`, the registry's), with the source files that name it as a
 *   whole word in code, or as a string of that one word (a key list, a check's option name);
 *   words inside longer strings (messages, CSS, docs) and comments do not count. A name that
 *   is also a plain word of the code (`model`, `tools`, `limit`) counts every use of it, so
 *   the figure is an upper bound for those.
 * - to add a provider / an adapter: the `src/` files `docs/extending.md` names in each recipe
 *   (`test/toy-provider.test.ts` holds the provider recipe to what the type check names).
 * `test/house.test.ts` holds the circles and up-arrows at zero.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

/**
 * The layers of `src/providers/`, lowest first: a file may import files of its own layer or
 * lower ones. Patterns are paths under `src/providers/`; `*` is one provider API's folder.
 */
export const PROVIDER_LAYERS: readonly (readonly string[])[] = [
  // 1 names: the provider names, the problems and their codes
  ['provider.ts', 'problems.ts'],
  // 2 kit: what every API's parts share
  [
    'codec-kit.ts',
    'figures.ts',
    'types.ts',
    'request-limits.ts',
    'counting-kit.ts',
    'message-tests.ts',
  ],
  // 3 an API's parts: its wire shapes, its codec (reading, writing and their face), its
  // message rules, its limits, its counting endpoint's request
  [
    '*/wire.ts',
    '*/model-run.ts',
    '*/decode.ts',
    '*/decode-turns.ts',
    '*/decode-parts.ts',
    '*/encode.ts',
    '*/encode-assistant.ts',
    '*/encode-parts.ts',
    '*/codec.ts',
    '*/rules.ts',
    '*/limits.ts',
    '*/counting.ts',
  ],
  // 4 an API whole: its rules and replies (`provider.ts`), its codec entry (`index.ts`)
  ['*/provider.ts', '*/index.ts'],
  // 5 the tables by provider name
  ['table.ts', 'checks.ts', 'replies.ts', 'counting.ts'],
  // 6 the engine over the tables
  ['validate.ts', 'repair-writes.ts', 'repair.ts', 'tool-shapes.ts'],
  // 7 the face
  ['index.ts'],
]

/**
 * The layers of `src/`, lowest first, by folder (a file directly under `src/` is an entry,
 * unless named here): a folder may import its own layer or lower ones. README's Architecture
 * section and `docs/architecture.md` draw the same order.
 */
export const SRC_LAYERS: readonly (readonly string[])[] = [
  // the credential filter, which an option's error message goes through too
  // (its parts by job below it: shared readings and gitleaks' table, names and token
  // formats, values after a name, command lines and the prefilter)
  ['messages/credential-text.ts', 'messages/credential-rules.ts'],
  ['messages/credential-keys.ts', 'messages/credential-tokens.ts'],
  [
    'messages/credential-values.ts',
    'messages/credential-commands.ts',
    'messages/credential-prefilter.ts',
  ],
  ['errors.ts', 'messages/credentials.ts'],
  ['options-check.ts'],
  ['messages'],
  ['tokens', 'store'],
  ['providers'],
  ['formats', 'strategies'],
  // the recall tool's parts: its definition, the index and search of what was left out, the
  // notes and numbering that name messages (the run over a fit is in context/)
  ['recall'],
  ['transforms', 'compress'],
  // the options (what a fit is given, checked and resolved; the strategies it can name), the
  // core (the index, the view, the plan, fit, recall over a fit), then its folders by job above
  // it: windows learnt from rejections and the provider's own count, then ChatContext
  ['context/options'],
  ['context'],
  ['context/limits', 'context/counting'],
  ['context/chat'],
  ['native', 'config', 'report', 'integrations'],
  // the recall tool handed to each framework, reading the adapters' histories
  ['recall/frameworks.ts'],
  ['cli'],
  // the entries, and recall's own face (re-exported by them)
  ['(entries)', 'recall/index.ts'],
  ['node'],
]

export function srcLayerOf(file: string): number | undefined {
  const path = relative(join(root, 'src'), file).replaceAll('\\', '/')
  const parts = path.split('/')
  if (parts[0] === '..' || parts[0] === undefined) return undefined
  // A file named on a layer is there; any other file is on its deepest folder's layer
  // (`context/chat` before `context`).
  const named = SRC_LAYERS.findIndex((layer) => layer.includes(path))
  if (named >= 0) return named + 1
  if (parts.length === 1) return layerIndex('(entries)')
  for (let depth = parts.length - 1; depth >= 1; depth--) {
    const index = layerIndex(parts.slice(0, depth).join('/'))
    if (index !== undefined) return index
  }
  return undefined
}

function layerIndex(name: string): number | undefined {
  const index = SRC_LAYERS.findIndex((layer) => layer.includes(name))
  return index < 0 ? undefined : index + 1
}

export function layerOf(file: string): number | undefined {
  const rel = relative(join(root, 'src/providers'), file).replaceAll('\\', '/')
  if (rel.startsWith('..')) return undefined
  const index = PROVIDER_LAYERS.findIndex((layer) =>
    layer.some((p) =>
      p.startsWith('*/') ? rel.endsWith(p.slice(1)) && rel.split('/').length === 2 : rel === p,
    ),
  )
  return index < 0 ? undefined : index + 1
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name)
    if (d.isDirectory()) return d.name === 'data' ? [] : sourceFiles(path)
    return d.name.endsWith('.ts') && !d.name.endsWith('.test.ts') ? [path] : []
  })
}

/**
 * The text with comments, strings and template literals blanked (kept line for line);
 * `keepWords` keeps a string that is one word (`'trigger'`, a key in a list or a check).
 */
function codeOnly(text: string, keepWords = false): string {
  let out = ''
  let i = 0
  while (i < text.length) {
    const c = text[i] as string
    const next = text[i + 1]
    if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2)
      const stop = end < 0 ? text.length : end + 2
      out += text.slice(i, stop).replace(/[^\n]/g, ' ')
      i = stop
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1
      const inner = text.slice(i + 1, j)
      const kept = keepWords && /^[\w$]+$/.test(inner) ? inner : inner.replace(/[^\n]/g, ' ')
      out += `${c}${kept}${c}`
      i = j + 1
    } else {
      out += c
      i++
    }
  }
  return out
}

const importPattern = /^(?:import|export)\s(?:[^;'"]*?\sfrom\s)?['"]([^'"]+)['"]/gm

/** The files of `src/` a file imports statically (relative imports only). */
export function importsOf(file: string, text = readFileSync(file, 'utf8')): string[] {
  return [...text.matchAll(importPattern)]
    .map((m) => m[1] as string)
    .filter((s) => s.startsWith('.'))
    .map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts')))
}

/** Groups of two or more files importing each other in a loop (Tarjan's components). */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const on = new Set<string>()
  const found: string[][] = []
  const visit = (v: string) => {
    index.set(v, index.size)
    low.set(v, index.get(v) ?? 0)
    stack.push(v)
    on.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0))
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0))
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = []
      let w: string | undefined
      do {
        w = stack.pop()
        if (w === undefined) break
        on.delete(w)
        group.push(w)
      } while (w !== v)
      if (group.length > 1) found.push(group.sort())
    }
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return found
}

/** Every option name a fit, a context or a named strategy reads, from the lists that check them. */
async function namedOptions(): Promise<string[]> {
  const load = (path: string) => import(pathToFileURL(join(root, 'src', path)).href)
  const options = await load('context/options/options.ts')
  const chat = await load('context/chat/chat-options.ts')
  const registry = await load('context/options/registry.ts')
  const cut = await load('strategies/token-limited.ts')
  const names = new Set<string>([
    ...options.FIT_OPTIONS,
    ...cut.CUT_OPTIONS,
    ...chat.CONTEXT_OPTIONS,
    ...(registry.strategyNames() as string[]).flatMap((n) => registry.strategyOptionNames(n)),
  ])
  return [...names].sort()
}

/**
 * The source files `docs/extending.md` names under a heading: its backquoted `src/` paths
 * (tests left out) and `package.json` / `tsconfig.json`, an
 * API's folder (`src/providers/<api>/`) counted as the five files the page lists for it.
 */
function recipeFiles(heading: string): string[] {
  const doc = readFileSync(join(root, 'docs/extending.md'), 'utf8')
  const start = doc.indexOf(`## ${heading}`)
  if (start < 0) return []
  const end = doc.indexOf('\n## ', start + 1)
  const section = doc.slice(start, end < 0 ? undefined : end)
  const paths = [
    ...section.matchAll(
      /`(src\/(?![^`]*\.test\.ts)[^`\s]+\.ts|src\/providers\/<api>\/|package\.json|tsconfig\.json)`/g,
    ),
  ].flatMap((m) =>
    m[1]?.endsWith('<api>/')
      ? ['codec.ts', 'rules.ts', 'limits.ts', 'provider.ts', 'index.ts'].map((f) => m[1] + f)
      : m[1]
        ? [m[1]]
        : [],
  )
  return [...new Set(paths)]
}

export async function houseFigures() {
  const files = sourceFiles(join(root, 'src'))
  const texts = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]))
  const graph = new Map(files.map((f) => [f, importsOf(f, texts.get(f))]))
  const lineCounts = files.map((f) => (texts.get(f) ?? '').split('\n').length - 1)
  const casts = files.reduce((n, f) => {
    const code = codeOnly(texts.get(f) ?? '').replace(importPattern, '')
    return n + [...code.matchAll(/\bas\s+(?!const\b)[\w{[(]/g)].length
  }, 0)
  const upArrows = files.flatMap((f) =>
    (graph.get(f) ?? []).flatMap((to) => {
      const from = layerOf(f)
      const target = layerOf(to)
      if (from === undefined || target === undefined || target <= from) return []
      return [`${relative(root, f)} -> ${relative(root, to)}`]
    }),
  )
  const rel = (f: string) => relative(root, f)
  const srcUpArrows = files.flatMap((f) =>
    (graph.get(f) ?? []).flatMap((to) => {
      const from = srcLayerOf(f)
      const target = srcLayerOf(to)
      if (from === undefined || target === undefined || target <= from) return []
      return [`${rel(f)} -> ${rel(to)}`]
    }),
  )
  const load = async (entry: string): Promise<string[]> => {
    const at = join(root, 'src', entry)
    return existsSync(at) ? Object.keys(await import(pathToFileURL(at).href)) : []
  }
  const rootNames = await load('index.ts')
  // Names kept only until a next release: none is supported, so none should be left.
  const deprecated = files.reduce(
    (n, f) => n + [...(texts.get(f) ?? '').matchAll(/@deprecated\b/g)].length,
    0,
  )
  const optionNames = await namedOptions()
  const uncommented = new Map(files.map((f) => [f, codeOnly(texts.get(f) ?? '', true)]))
  const optionFiles = optionNames
    .map((name) => {
      const word = new RegExp(`(?<![\\w$])${name}(?![\\w$])`)
      return { name, files: files.filter((f) => word.test(uncommented.get(f) ?? '')).map(rel) }
    })
    .sort((a, b) => b.files.length - a.files.length || a.name.localeCompare(b.name))
  const providerFiles = files.filter((f) => layerOf(f) !== undefined)
  return {
    files: files.length,
    lines: lineCounts.reduce((a, b) => a + b, 0),
    over300: files
      .map((f, i) => ({ file: rel(f), lines: lineCounts[i] ?? 0 }))
      .filter((f) => f.lines > 300)
      .sort((a, b) => b.lines - a.lines),
    casts,
    circles: circles(graph).map((group) => group.map(rel)),
    providerArrows: providerFiles.reduce(
      (n, f) => n + (graph.get(f) ?? []).filter((t) => layerOf(t) !== undefined).length,
      0,
    ),
    upArrows,
    srcUpArrows,
    // A file of src/ on no layer (its folder unnamed in SRC_LAYERS), or of providers/ on none
    // of PROVIDER_LAYERS: its arrows could not be judged.
    unlayered: files
      .filter(
        (f) =>
          srcLayerOf(f) === undefined ||
          (f.includes('/src/providers/') && layerOf(f) === undefined),
      )
      .map(rel),
    rootExports: rootNames.length,
    optionFiles,
    deprecated,
    toAddProvider: recipeFiles('A provider API'),
    toAddAdapter: recipeFiles('A framework adapter'),
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const f = await houseFigures()
  if (process.argv.includes('--json')) console.log(JSON.stringify(f))
  else {
    console.log(`files            ${f.files}`)
    console.log(`lines            ${f.lines}`)
    console.log(`over 300 lines   ${f.over300.length}`)
    for (const o of f.over300) console.log(`  ${o.lines}  ${o.file}`)
    console.log(`as casts         ${f.casts}`)
    console.log(`import circles   ${f.circles.length}`)
    for (const c of f.circles) console.log(`  ${c.length} files: ${c.join(', ')}`)
    console.log(`providers/ up    ${f.upArrows.length} of ${f.providerArrows} arrows`)
    for (const a of f.upArrows) console.log(`  ${a}`)
    console.log(`src/ up          ${f.srcUpArrows.length} (folders against SRC_LAYERS)`)
    for (const a of f.srcUpArrows) console.log(`  ${a}`)
    for (const u of f.unlayered) console.log(`  no layer: ${u}`)
    const over = f.optionFiles.filter((o) => o.files.length > 3)
    console.log(
      `options in >3    ${over.length} of ${f.optionFiles.length} option names in more than 3 source files`,
    )
    for (const o of f.optionFiles) console.log(`  ${String(o.files.length).padStart(3)}  ${o.name}`)
    console.log(`root exports     ${f.rootExports} runtime names`)
    console.log(`@deprecated      ${f.deprecated}`)
    console.log(`add a provider   ${f.toAddProvider.length} source files named (docs/extending.md)`)
    console.log(
      `add an adapter   ${f.toAddAdapter.length ? `${f.toAddAdapter.length} source files named (docs/extending.md)` : 'no recipe in docs/extending.md'}`,
    )
  }
}
