// Gemini's rules for `contents`, written from its documentation and the errors users
// report, apart from the library: this file imports nothing from src/.

type Json = Record<string, unknown>

const DATA = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
]

/** A part as a stable string: keys sorted at every depth. */
function key(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(key).join(',')}]`
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${key((v as Json)[k])}`)
      .join(',')}}`
  return JSON.stringify(v)
}

/**
 * Every rule the request breaks, as sentences; none means the API accepts it. With the
 * `source` contents the output was cut from, also: each signature goes back byte for byte
 * on the very part that carried it (never merged, split or moved).
 */
export function geminiViolations(
  request: { contents?: unknown; systemInstruction?: unknown },
  source?: readonly unknown[],
): string[] {
  const out: string[] = []
  const contents = request.contents as Json[]
  if (!Array.isArray(contents) || contents.length === 0)
    return ['contents must be a non-empty list']
  contents.forEach((c, i) => {
    if (c.role !== 'user' && c.role !== 'model')
      out.push(`content ${i}: role must be user or model, got ${String(c.role)}`)
    const parts = c.parts as Json[]
    if (!Array.isArray(parts) || parts.length === 0) {
      out.push(`content ${i}: contents.parts must not be empty`)
      return
    }
    parts.forEach((p, k) => {
      const fields = DATA.filter((d) => p[d] !== undefined)
      if (fields.length !== 1)
        out.push(
          `content ${i} part ${k}: exactly one data field, got ${fields.join(', ') || 'none'}`,
        )
      if (p.functionCall && c.role !== 'model')
        out.push(`content ${i}: a function call in a user turn`)
      if (p.functionResponse && c.role !== 'user')
        out.push(`content ${i}: a function response in a model turn`)
      if (p.thought && c.role !== 'model') out.push(`content ${i}: a thought in a user turn`)
      // Gemini refuses an empty text part ("empty text parameter"); a part that carries a
      // thought signature is the model's own and goes back as it came.
      if (p.text === '' && p.thoughtSignature === undefined)
        out.push(`content ${i} part ${k}: an empty text part`)
      // A function response carries media in its own parts (FunctionResponsePart): each one
      // inline bytes or a file URI, with the IANA MIME type the API requires.
      const media = (p.functionResponse as Json | undefined)?.parts
      if (media !== undefined) {
        if (!Array.isArray(media))
          out.push(`content ${i} part ${k}: functionResponse.parts must be a list`)
        else
          (media as Json[]).forEach((q, n) => {
            const at = `content ${i} part ${k} functionResponse.parts.${n}`
            const blob = q?.inlineData as Json | undefined
            const file = q?.fileData as Json | undefined
            if ((blob === undefined) === (file === undefined))
              out.push(`${at}: exactly one of inlineData and fileData`)
            else if (typeof (blob ?? file)?.mimeType !== 'string' || !(blob ?? file)?.mimeType)
              out.push(`${at}: a mimeType is required`)
            else if (blob ? typeof blob.data !== 'string' : typeof file?.fileUri !== 'string')
              out.push(`${at}: ${blob ? 'data' : 'fileUri'} is required`)
          })
      }
    })
  })
  const first = contents[0] as Json
  if (first.role !== 'user' || (first.parts as Json[]).some((p) => p.functionResponse))
    out.push('the conversation must start with a user turn')
  for (let i = 0; i < contents.length; i++) {
    const c = contents[i] as Json
    const parts = (c.parts as Json[] | undefined) ?? []
    const calls = parts.filter((p) => p.functionCall).map((p) => p.functionCall as Json)
    const responses = parts.filter((p) => p.functionResponse).map((p) => p.functionResponse as Json)
    if (responses.length) {
      if (responses.length !== parts.length)
        out.push(`content ${i}: a function response turn holds other parts`)
      const prev = contents[i - 1]
      const prevCalls = ((prev?.parts as Json[] | undefined) ?? []).filter((p) => p.functionCall)
      if (prev?.role !== 'model' || prevCalls.length === 0)
        out.push(
          `content ${i}: function response turn does not come right after a function call turn`,
        )
    }
    if (calls.length) {
      const next = contents[i + 1]
      const answers = ((next?.parts as Json[] | undefined) ?? [])
        .filter((p) => p.functionResponse)
        .map((p) => p.functionResponse as Json)
      if (answers.length !== calls.length) {
        out.push(
          `content ${i}: Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn (${answers.length} for ${calls.length})`,
        )
        continue
      }
      // Matched by id where calls have ids, else by name.
      const want = calls
        .map((f) => (f.id !== undefined ? `id:${String(f.id)}` : `name:${String(f.name)}`))
        .sort()
      const got = answers
        .map((f, k) =>
          calls[k]?.id !== undefined || f.id !== undefined
            ? `id:${String(f.id)}`
            : `name:${String(f.name)}`,
        )
        .sort()
      if (key(want) !== key(got))
        out.push(
          `content ${i}: function responses ${got.join(' ')} do not answer calls ${want.join(' ')}`,
        )
      for (const f of calls)
        if (f.args !== undefined && (typeof f.args !== 'object' || Array.isArray(f.args)))
          out.push(`content ${i}: args must be an object`)
    }
  }
  if (source) {
    // Keyed by role too: a user's text may equal a model's signed text.
    const signed = new Set<string>()
    const bare = new Set<string>()
    const unsigned = new Set<string>()
    for (const c of source as Json[]) {
      for (const p of (c.parts as Json[] | undefined) ?? []) {
        const role = String(c.role)
        if (typeof p.thoughtSignature !== 'string') {
          unsigned.add(`${role}${key(p)}`)
          continue
        }
        const { thoughtSignature: _s, ...rest } = p
        signed.add(`${role}${key(p)}`)
        bare.add(`${role}${key(rest)}`)
      }
    }
    // Gemini validates the signatures of function calls only; on other parts they are
    // returned but not checked, so a shortened text may keep the signature it came with.
    const sourceSignatures = new Set<unknown>()
    for (const c of source as Json[])
      for (const p of (c.parts as Json[] | undefined) ?? [])
        if (!p.functionCall && p.thoughtSignature !== undefined)
          sourceSignatures.add(p.thoughtSignature)
    const textSignature = (p: Json) =>
      typeof p.text === 'string' && sourceSignatures.has(p.thoughtSignature)
    contents.forEach((c, i) => {
      for (const p of (c.parts as Json[] | undefined) ?? []) {
        const k = `${String(c.role)}${key(p)}`
        if (typeof p.thoughtSignature === 'string') {
          if (!signed.has(k) && !movedSignature(c, p, source as Json[]) && !textSignature(p))
            out.push(`content ${i}: a signed part that is not the source's part, byte for byte`)
          continue
        }
        // A part the source has both signed and unsigned (a repeated call) proves nothing.
        if (bare.has(k) && !unsigned.has(k))
          out.push(`content ${i}: a part lost the thought signature it carried`)
      }
    })
  }
  return out
}

/**
 * Gemini 3 wants a signature on the first function call of each step. When the signed first
 * call of a parallel step is not sent (no response for it), its signature may go on the first
 * call that is: the part is that step's own call, unsigned there, and the step's signed call
 * is not in the turn sent.
 */
function movedSignature(turn: Json, part: Json, source: Json[]): boolean {
  if (!part.functionCall) return false
  const parts = (turn.parts as Json[]).filter((q) => q.functionCall)
  if (parts[0] !== part) return false
  const { thoughtSignature: sig, ...bare } = part
  return source.some((c) => {
    const calls = ((c.parts as Json[] | undefined) ?? []).filter((q) => q.functionCall)
    const signer = calls[0]
    return (
      c.role === 'model' &&
      signer !== undefined &&
      signer.thoughtSignature === sig &&
      calls.some((q) => q.thoughtSignature === undefined && key(q) === key(bare)) &&
      !parts.some((q) => key(q.functionCall) === key(signer.functionCall))
    )
  })
}
