/**
 * The provider API names: what the `provider` option takes, states and component configs save,
 * and every table by provider name is keyed by (`Record<Provider, …>`, so adding a name here
 * makes the type check list each table that lacks it).
 */
export type Provider = 'openai' | 'anthropic' | 'openai-responses' | 'gemini'
export const PROVIDERS = ['openai', 'anthropic', 'openai-responses', 'gemini'] as const
