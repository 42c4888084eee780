// Runs in the browser (bundled by test/browser.test.ts) and in Node: the same calls, the same answers.
import { estimateCounter, fit, fromAISDK, fromAnthropic, toAnthropic } from '../../src/index.js'

// A 2×3 PNG: its header gives the size the image pricing reads.
const PNG = Uint8Array.from(
  atob(
    'iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAYAAAC56t6BAAAAEUlEQVR4nGP8z8DwnwEJMDEwMDAAAPwHAgCX9ZdBAAAAAElFTkSuQmCC',
  ),
  (c) => c.charCodeAt(0),
)

export function run() {
  // An image as bytes (AI SDK), fitted with Anthropic's pricing.
  const withImage = fromAISDK([
    {
      role: 'user',
      content: [
        { type: 'image', image: PNG, mediaType: 'image/png' },
        { type: 'text', text: 'What is this?' },
      ],
    },
  ])
  const counter = estimateCounter({ model: 'claude-sonnet-4-5' })
  const imageFit = fit(withImage, { provider: 'anthropic', budget: 5000, counter })
  // A text document (Anthropic), read and written back.
  const doc = {
    messages: [
      {
        role: 'user' as const,
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
    ],
  }
  const docMessages = fromAnthropic(doc)
  const docFit = fit(docMessages, { provider: 'anthropic', budget: 5000, counter })
  return {
    imageTokens: imageFit.tokens.messages,
    imageData: (withImage[0]?.content as { data?: string }[] | undefined)?.[0]?.data,
    docTokens: docFit.tokens.messages,
    docBack: toAnthropic(docFit.messages).messages,
  }
}
