import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { inCI } from '../../test/helpers/ci.js'
import { fit } from '../context/fit.js'
import type { Message } from '../messages/message.js'
import { fromOpenAIChat } from '../providers/openai-chat/codec.js'
import { headAndTail } from '../strategies/head-and-tail.js'
import { renderReport } from './html.js'

const CHROMIUM = '/usr/bin/chromium'
const example = JSON.parse(
  readFileSync(new URL('../../examples/airline-booking.json', import.meta.url), 'utf8'),
)
const history = fromOpenAIChat(example)

function hasChromium(): boolean {
  try {
    execFileSync(CHROMIUM, ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
const browser = hasChromium()
if (!browser) {
  if (inCI)
    throw new Error('CI must run the browser test: chromium is not installed (.ci/run installs it)')
  console.warn(
    '\n*** SKIPPING the HTML report browser test: /usr/bin/chromium is not installed (apt-get install chromium) ***\n',
  )
}

describe('HTML report', () => {
  it('is self-contained and escapes message text', () => {
    const h: Message[] = [
      ...history,
      { role: 'user', content: '</script><img src=x onerror=alert(1)> & "quotes"' },
    ]
    const html = renderReport(h, fit(h, { budget: 3000 }), {
      strategy: 'tokenLimited',
      budget: 3000,
    })
    expect(html).not.toMatch(/<img src=x/)
    expect(html).toMatch(/&#60;\/script&#62;&#60;img src=x/)
    expect(html).not.toMatch(/(src|href)="https?:/)
    expect(html).not.toMatch(/<link /)
  })

  it('labels every fate in words, not colour alone, and groups tool exchanges', () => {
    const r = fit(history, { strategy: headAndTail({ head: 1, tail: 8 }), budget: 4000 })
    const html = renderReport(history, r, { strategy: r.strategy, budget: 4000 })
    expect(html.match(/class="fate">kept</g)?.length).toBe(r.kept.length - r.changed.length)
    expect(html).toMatch(/summarized into the summary sent at position \d+/)
    // An inserted message is labelled unlike an input index (#i): it is no input message.
    expect(html).toMatch(/<span class="idx"[^>]*>new @\d+<\/span>/)
    expect(html).not.toMatch(
      />\+?#\d+<\/span><span class="role">(system|user|assistant)<\/span><span class="tok"><\/span>/,
    )
    expect(html.match(/role="group"/g)?.length).toBe(
      history.filter((m) => m.role === 'assistant' && m.toolCalls?.length).length,
    )
  })

  it.runIf(browser)(
    'renders in a real headless Chromium: one row per message, the budget bar, no console errors',
    async () => {
      const { chromium } = await import('playwright-core')
      const dir = mkdtempSync(join(tmpdir(), 'cw-report-'))
      const file = join(dir, 'report.html')
      const r = fit(history, {
        strategy: headAndTail({ head: 2, tail: 10 }),
        budget: 3500,
        reserve: 300,
      })
      writeFileSync(
        file,
        renderReport(history, r, {
          strategy: r.strategy,
          budget: 3500,
          source: 'airline-booking.json',
        }),
      )
      const b = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      })
      try {
        const page = await b.newPage({ viewport: { width: 1200, height: 900 } })
        const errors: string[] = []
        page.on('console', (m) => {
          if (m.type() === 'error') errors.push(m.text())
        })
        page.on('pageerror', (e) => errors.push(e.message))
        const requests: string[] = []
        page.on('request', (req) => {
          if (!req.url().startsWith('file:')) requests.push(req.url())
        })
        await page.goto(pathToFileURL(file).href)
        expect(await page.locator('details.msg[data-index]').count()).toBe(history.length)
        expect(await page.locator('details.msg.inserted').count()).toBe(r.inserted.length)
        const segments = await page
          .locator('.bar .seg')
          .evaluateAll((els) => els.map((e) => e.getAttribute('data-segment')))
        expect(segments).toEqual(['system', 'tools', 'kept', 'summary', 'reserve', 'free'])
        const widths = await page
          .locator('.bar .seg')
          .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width))
        expect(widths.every((w) => w > 0)).toBe(true)
        // A click shows the full text.
        const first = page.locator('details.msg[data-index="1"]')
        await first.locator('summary').click()
        expect(await first.locator('pre').isVisible()).toBe(true)
        const shot = await page.screenshot()
        expect(shot.length).toBeGreaterThan(10_000)
        expect(errors).toEqual([])
        expect(requests).toEqual([])
      } finally {
        await b.close()
      }
    },
    60_000,
  )
})
