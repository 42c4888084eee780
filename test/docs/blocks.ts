import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

/** One fenced TypeScript block of a Markdown page. */
export interface Block {
  /** The page, relative to the repository root. */
  file: string
  /** The line of the opening fence. */
  line: number
  code: string
  /** `// from examples/x.ts` on the first line: the block is an excerpt of that file. */
  excerptOf?: string
}

const FENCE = /^```(ts|typescript|js|javascript)\s*\n([\s\S]*?)^```\s*$/gm
const EXCERPT = /^\/\/ from (examples\/[\w.-]+\.ts)\b/

/** README.md and every page under docs/, in a fixed order. */
export function pages(root: string): string[] {
  const docs = join(root, 'docs')
  const found = readdirSync(docs, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(docs, f))
    .sort()
  return [join(root, 'README.md'), ...found]
}

/** Every TypeScript or JavaScript block of the README and the docs pages. */
export function blocks(root: string): Block[] {
  const out: Block[] = []
  for (const path of pages(root)) {
    const text = readFileSync(path, 'utf8')
    for (const m of text.matchAll(FENCE)) {
      const code = m[2] ?? ''
      const line = text.slice(0, m.index).split('\n').length
      const excerpt = EXCERPT.exec(code)
      out.push({
        file: relative(root, path),
        line,
        code,
        ...(excerpt ? { excerptOf: excerpt[1] } : {}),
      })
    }
  }
  return out
}

/** A file name for a block: its page and line. */
export function blockName(b: Block): string {
  return `${b.file.replace(/[^\w]+/g, '-')}-${b.line}`
}

/**
 * Whether every code line of an excerpt appears in `source`, in order (white space inside a
 * line ignored; `// ...` lines in the excerpt mark what was left out and are skipped).
 */
export function missingLines(excerpt: string, source: string): string[] {
  const squash = (s: string) => s.replace(/\s+/g, '')
  const src = source.split('\n').map(squash)
  const missing: string[] = []
  let at = 0
  for (const raw of excerpt.split('\n').slice(1)) {
    const line = squash(raw)
    if (line === '' || line.startsWith('//')) continue
    const found = src.findIndex((l, i) => i >= at && l === line)
    if (found < 0) missing.push(raw.trim())
    else at = found + 1
  }
  return missing
}
