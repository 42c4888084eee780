/**
 * Whether a message or a part goes out as a codec carried it (a Responses hosted item, a
 * Gemini part or an Anthropic block kept whole): its text stands for it, and a transform
 * that changed the text would not change what is sent. Transforms leave such ones alone.
 */
export function isCarried(x: {
  providerMetadata?: Record<string, Record<string, unknown>> | undefined
}): boolean {
  for (const data of Object.values(x.providerMetadata ?? {}))
    if (data && typeof data === 'object' && ('item' in data || 'block' in data || 'part' in data))
      return true
  return false
}
