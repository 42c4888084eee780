/**
 * The provider API names: what the `provider` option takes, states and component configs save,
 * and every table by provider name is keyed by (`Record<Provider, …>`, so adding a name here
 * makes the type check name each table that lacks it).
 */
export const PROVIDERS = ['openai', 'anthropic', 'openai-responses', 'gemini'] as const
export type Provider = (typeof PROVIDERS)[number]

/** The `format` name of each provider API's wire codec (`ProviderRules.format`). */
export type WireFormat = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini'

/**
 * `Names`, when each of them is in `List`: a list of names written out apart from these (for
 * its order, or its documentation) states `AllListed<…>` beside it, so that adding a provider
 * makes the type check name that list too.
 */
export type AllListed<Names extends List, List> = Names
