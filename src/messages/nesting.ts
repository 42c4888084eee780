/** Deeper than any message a provider sends; far below what recursion (copy, clone, JSON) survives. */
export const MAX_NESTING = 100

/**
 * Where a value stops being plain data a message can hold: nested deeper than `MAX_NESTING`
 * levels, containing itself, or holding a big integer (which JSON cannot write). One pass over the value, no recursion (so a hostile value
 * cannot overflow the stack here either); a value shared by two fields is fine.
 */
export function nestingProblem(value: unknown): { path: string[]; detail: string } | undefined {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return undefined
  // Most messages are a few small objects: a plain walk that gives up early says so without
  // the bookkeeping below, which then runs only on what the walk could not clear.
  left = QUICK_OBJECTS
  if (quickClear(value, 0)) return undefined
  const done = new WeakSet<object>()
  const onPath = new Set<object>()
  const path: string[] = []
  const stack: { item: object; keys: string[]; next: number }[] = []
  const enter = (item: object) => {
    onPath.add(item)
    stack.push({ item, keys: Object.keys(item), next: 0 })
  }
  enter(value)
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as (typeof stack)[number]
    if (frame.next === frame.keys.length) {
      stack.pop()
      path.pop()
      onPath.delete(frame.item)
      done.add(frame.item)
      continue
    }
    const key = frame.keys[frame.next++] as string
    const child = (frame.item as Record<string, unknown>)[key]
    if (typeof child === 'bigint')
      return { path: [...path, key], detail: 'a big integer (not plain data)' }
    if (child === null || typeof child !== 'object' || done.has(child) || ArrayBuffer.isView(child))
      continue
    path.push(key)
    if (onPath.has(child)) return { path: [...path], detail: 'contains itself (not plain data)' }
    if (stack.length >= MAX_NESTING)
      return { path: [...path], detail: `nested deeper than ${MAX_NESTING} levels` }
    enter(child)
  }
  return undefined
}

/** Objects the quick walk visits before it leaves the value to the full check. */
const QUICK_OBJECTS = 2000
let left = 0

/**
 * True when every object reachable from `value` is fewer than `MAX_NESTING` levels deep and
 * there are at most `QUICK_OBJECTS` of them along all paths: then no object contains itself
 * (a cycle would make a path of any length). False means only "not cleared here".
 */
function quickClear(value: object, depth: number): boolean {
  if (--left < 0 || depth >= MAX_NESTING - 1) return false
  const record = value as Record<string, unknown>
  for (const key of Object.keys(value)) {
    const child = record[key]
    if (typeof child === 'bigint') return false
    if (child === null || typeof child !== 'object' || ArrayBuffer.isView(child)) continue
    if (!quickClear(child, depth + 1)) return false
  }
  return true
}

/** A path short enough for one line of an error: its first keys, then how many levels follow. */
export function shortPath(path: readonly string[]): string[] {
  return path.length > 6 ? [...path.slice(0, 4), `(${path.length - 4} levels more)`] : [...path]
}

/** `nestingProblem` as a message issue (field path and reason), for the message checks and the schema. */
export function nestingIssue(value: unknown): { path: string[]; message: string } | undefined {
  const problem = nestingProblem(value)
  return problem && { path: shortPath(problem.path), message: problem.detail }
}

/**
 * How deep the arrays and objects of a JSON text nest, in one pass without parsing it (so a
 * hostile text cannot overflow a stack here), stopping once past `limit`. Brackets inside
 * strings do not count.
 */
export function jsonDepth(text: string, limit = MAX_NESTING): number {
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92)
        i++ // a backslash escapes the next character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) {
      depth++
      if (depth > max) {
        max = depth
        if (max > limit) return max
      }
    } else if (c === 125 || c === 93) depth--
  }
  return max
}
