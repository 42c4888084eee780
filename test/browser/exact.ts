// Runs in the browser (bundled, split, by test/browser.test.ts): exact counting with no
// synchronous loader, before and after loadEncoding.
import {
  counterFor,
  EncodingNotLoadedError,
  exactCounter,
  fit,
  fromOpenAIChat,
  loadEncoding,
} from '../../src/index.js'

export async function exact(texts: string[], conversation: unknown) {
  const o200k = exactCounter()
  let before = 'counted'
  try {
    o200k.countText('hello')
  } catch (e) {
    before = e instanceof EncodingNotLoadedError ? e.name : String(e)
  }
  await loadEncoding()
  await loadEncoding('cl100k_base')
  const gpt4 = counterFor('gpt-4')
  const fitted = fit(fromOpenAIChat(conversation), { model: 'gpt-4o', budget: 3000 })
  return {
    before,
    o200k: texts.map((t) => o200k.countText(t)),
    cl100k: texts.map((t) => gpt4.countText(t)),
    kept: fitted.kept,
    total: fitted.tokens.total,
  }
}
