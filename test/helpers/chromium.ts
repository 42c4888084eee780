// A page run in headless Chromium: the page and its scripts served from 127.0.0.1, and what
// the page leaves in `window.result`, with the errors it threw.
import { createServer } from 'node:http'
import type { Page } from 'playwright-core'

/** Where CI installs Chromium (`.ci/run`). */
export const CHROMIUM = '/usr/bin/chromium'

/**
 * Serves `files` by path (`/bundle.js`) and `page` for any other path, opens the page in
 * headless Chromium, waits (up to a minute) for `window.result` and returns it, the page's
 * uncaught errors, and what `probe` reads in the tab after.
 */
export async function resultInChromium<T = undefined>(
  page: string,
  files: ReadonlyMap<string, string | Uint8Array>,
  probe?: (tab: Page) => Promise<T>,
): Promise<{ result: unknown; errors: string[]; probed: T | undefined }> {
  const server = createServer((req, res) => {
    const file = files.get(req.url ?? '')
    res.writeHead(200, { 'content-type': file === undefined ? 'text/html' : 'text/javascript' })
    res.end(file ?? page)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as { port: number }).port
  const { chromium } = await import('playwright-core')
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  try {
    const tab = await browser.newPage()
    const errors: string[] = []
    tab.on('pageerror', (e) => errors.push(e.message))
    await tab.goto(`http://127.0.0.1:${port}/`)
    await tab.waitForFunction(() => 'result' in globalThis, undefined, { timeout: 60_000 })
    const result = await tab.evaluate(() => (globalThis as unknown as { result: unknown }).result)
    const probed = probe ? await probe(tab) : undefined
    return { result, errors, probed }
  } finally {
    await browser.close()
    server.close()
  }
}
