import { InvalidInputError } from '../errors.js'
import type { ProviderMetadata } from '../messages/message.js'

export type Json = Record<string, unknown>

/** Throws the typed error every decoder throws: message index, field, what is wrong. */
export function fail(index: number, field: string, detail: string): never {
  throw new InvalidInputError(detail, { index, field })
}

/** Reads and writes one format's round-trip metadata on messages, parts and calls. */
export function metadataFor(format: string) {
  return {
    meta: (x: { providerMetadata?: ProviderMetadata | undefined }): Json =>
      x.providerMetadata?.[format] ?? {},
    withMeta: <T extends object>(x: T, data: Json): T =>
      Object.keys(data).length ? { ...x, providerMetadata: { [format]: data } } : x,
  }
}

/** Tool-call arguments kept as a string, back to the object a format wants; what is not JSON stays a string. */
export function parseArguments(
  args: string,
  wrap: (value: unknown) => unknown = (v) => v,
): unknown {
  try {
    return wrap(JSON.parse(args))
  } catch {
    return wrap(args)
  }
}
