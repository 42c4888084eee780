import { isJson } from './codec-kit.js'

/** A token figure from a provider's body: a finite count >= 0, rounded; undefined otherwise. */
export function tokenFigure(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : undefined
}

/** The object a usage reader looks in: `usage` when the response has one, else the object itself. */
export function usageObject(response: Record<string, unknown>): Record<string, unknown> {
  const u = response.usage
  return isJson(u) ? u : response
}
