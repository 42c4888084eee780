import { anthropicRules } from './anthropic-messages/rules.js'
import { geminiRules } from './gemini/rules.js'
import { responsesRules } from './openai-responses/rules.js'
import type { Provider } from './provider.js'
import type { ListCheck } from './types.js'

/**
 * Each provider API's own rules over a whole list, by `provider` name (the names of
 * `PROVIDER_RULES`; undefined where the shared rules are all): what `validate` adds to the
 * rules every API shares. A table apart from the rules that repair and fitting read, so an
 * app that fits and never validates carries none of it.
 */
export const PROVIDER_CHECKS: Readonly<Record<Provider, ListCheck | undefined>> = Object.freeze({
  openai: undefined,
  anthropic: anthropicRules,
  'openai-responses': responsesRules,
  gemini: geminiRules,
})
