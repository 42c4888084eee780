import { vi } from 'vitest'

/** Imports (runs) an example module and returns what it printed with `console.log`, one entry a call. */
export async function printedBy(url: URL): Promise<string[]> {
  const lines: string[] = []
  const spy = vi.spyOn(console, 'log').mockImplementation((...args) => {
    lines.push(args.join(' '))
  })
  try {
    await import(url.href)
  } finally {
    spy.mockRestore()
  }
  return lines
}
