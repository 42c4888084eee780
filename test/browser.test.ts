import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { countTokens as cl100kReference } from 'gpt-tokenizer/encoding/cl100k_base'
import { countTokens as o200kReference } from 'gpt-tokenizer/encoding/o200k_base'
import { describe, expect, it } from 'vitest'
import { fit, fromOpenAIChat } from '../src/index.js'
import { run } from './browser/entry.js'
import { CHROMIUM, resultInChromium } from './helpers/chromium.js'
import { requireInCI } from './helpers/ci.js'

const root = fileURLToPath(new URL('..', import.meta.url))

/**
 * The root entry uses no Node global: images as bytes (AI SDK), an Anthropic text document
 * and a fit with image pricing give in headless Chromium what they give in Node. The bundle
 * is the browser build of the source with nothing external; a `Buffer` or `process` reached
 * at run time would throw there (Chromium has neither).
 */
describe('the root entry in a browser', () => {
  it('its bundle names no Node global', async () => {
    const out = await build({
      entryPoints: [fileURLToPath(new URL('../src/index.ts', import.meta.url))],
      bundle: true,
      platform: 'neutral',
      mainFields: [],
      format: 'esm',
      write: false,
      logLevel: 'silent',
      absWorkingDir: root,
    })
    const text = out.outputFiles[0]?.text ?? ''
    expect(text.match(/\bBuffer\.(from|alloc|isBuffer|byteLength)\b/g) ?? []).toEqual([])
    expect(
      text.match(/\bprocess\.(env|stderr|stdout|exit|argv|platform|versions)\b/g) ?? [],
    ).toEqual([])
  })

  it.runIf(requireInCI(existsSync(CHROMIUM), 'chromium'))(
    'images as bytes, an Anthropic text document and image pricing give in Chromium what they give in Node',
    async () => {
      const expected = run()
      expect(expected.imageTokens).toBeGreaterThan(0)
      expect(expected.docBack).toEqual([
        {
          role: 'user',
          content: [
            {
              type: 'document',
              source: {
                type: 'text',
                media_type: 'text/plain',
                data: 'Baggage: two bags, ünïcödé ✈️.',
              },
            },
            { type: 'text', text: 'Summarize.' },
          ],
        },
      ])
      const result = await build({
        entryPoints: [fileURLToPath(new URL('./browser/entry.ts', import.meta.url))],
        bundle: true,
        platform: 'browser',
        format: 'esm',
        write: false,
        logLevel: 'silent',
        absWorkingDir: root,
      })
      const bundle = result.outputFiles[0]?.contents ?? new Uint8Array()
      const page = `<!doctype html><meta charset="utf-8"><script type="module">
import { run } from '/bundle.js'
try { window.result = run() } catch (e) { window.result = { error: String(e && e.stack || e) } }
</script>`
      const {
        result: got,
        errors,
        probed,
      } = await resultInChromium(page, new Map([['/bundle.js', bundle]]), (tab) =>
        tab.evaluate(() => typeof (globalThis as { Buffer?: unknown }).Buffer),
      )
      expect(errors).toEqual([])
      expect(got).toEqual(expected)
      expect(probed).toBe('undefined')
    },
    180_000,
  )

  it.runIf(requireInCI(existsSync(CHROMIUM), 'chromium'))(
    'exact counting in Chromium: a typed error before loadEncoding, the reference counts after, from a split-off chunk',
    async () => {
      const texts = [
        'Héllo 👩‍👩‍👧 𝒳𝒴 <|endoftext|> done',
        "I'm sure WE'LL fly HAT170 on 2024-05-16 for $1,234.56",
        '日本語のテキストと русский текст',
        '  \n\n\t indented\r\n',
        '',
      ]
      const conversation = JSON.parse(
        readFileSync(new URL('../examples/airline-booking.json', import.meta.url), 'utf8'),
      )
      const asText = { disallowedSpecial: new Set<string>() }
      const node = fit(fromOpenAIChat(conversation), { model: 'gpt-4o', budget: 3000 })
      const result = await build({
        entryPoints: { exact: fileURLToPath(new URL('./browser/exact.ts', import.meta.url)) },
        bundle: true,
        splitting: true,
        outdir: 'browser-out',
        platform: 'browser',
        format: 'esm',
        write: false,
        metafile: true,
        logLevel: 'silent',
        absWorkingDir: root,
      })
      const files = new Map(result.outputFiles.map((f) => [`/${f.path.split('/').at(-1)}`, f]))
      // The tables are chunks of their own, which the entry reaches only by dynamic import.
      const outputs = Object.entries(result.metafile.outputs)
      const tableChunks = outputs
        .filter(([, o]) => Object.keys(o.inputs).some((i) => /tokens\/data\//.test(i)))
        .map(([f]) => f)
      expect(tableChunks).toHaveLength(2)
      for (const [, o] of outputs)
        for (const i of o.imports)
          if (tableChunks.includes(i.path)) expect(i.kind).toBe('dynamic-import')
      const page = `<!doctype html><meta charset="utf-8"><script type="module">
import { exact } from '/exact.js'
exact(${JSON.stringify(texts)}, ${JSON.stringify(conversation)}).then(
  (r) => { window.result = r },
  (e) => { window.result = { error: String(e && e.stack || e) } },
)
</script>`
      const { result: got, errors } = await resultInChromium(
        page,
        new Map([...files].map(([path, f]) => [path, f.contents])),
      )
      expect(errors).toEqual([])
      expect(got).toEqual({
        before: 'EncodingNotLoadedError',
        o200k: texts.map((t) => o200kReference(t, asText)),
        cl100k: texts.map((t) => cl100kReference(t, asText)),
        kept: node.kept,
        total: node.tokens.total,
      })
    },
    180_000,
  )
})
