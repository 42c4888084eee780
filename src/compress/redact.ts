const MARK = '[redacted]'

/**
 * `text` with every occurrence of `secret` replaced, in the forms a server may echo it:
 * as is, JSON-escaped (`\u002d` for `-`, `\/` for `/`), percent-encoded, and base64 (as in
 * a Basic header). Escapes are decoded first, so a secret written half escaped is found too.
 * Run it on the whole text, before any cut: a cut first can leave part of the secret.
 */
export function redact(text: string, secret: string | undefined): string {
  if (!secret) return text
  const decoded = decodeEscapes(text)
  const forms = new Set([secret, encodeURIComponent(secret), base64(secret), base64(`:${secret}`)])
  let out = decoded
  for (const form of forms) if (form) out = out.split(form).join(MARK)
  // The base64 of the key inside a longer base64 run ("user:key") shifts with its offset: test the three alignments.
  for (let shift = 0; shift < 3; shift++) {
    const core = base64(`${'x'.repeat(shift)}${secret}`).slice(4, -4)
    if (core.length >= 8) out = out.split(core).join(MARK)
  }
  return out
}

/** JSON and percent escapes decoded, a few levels deep (a body quoted inside a body escapes twice). */
function decodeEscapes(text: string): string {
  let out = text
  for (let round = 0; round < 3; round++) {
    // One pass, no backtracking: a run of backslashes, then what it escapes (if anything).
    const next = out
      .replace(/\\+(u[0-9a-fA-F]{4}|[/"])?/g, (run: string, tail: string | undefined) => {
        if (tail === undefined) return run.length > 1 ? run.slice(run.length >> 1) : run
        return tail.length === 5 ? String.fromCharCode(Number.parseInt(tail.slice(1), 16)) : tail
      })
      .replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      )
    if (next === out) break
    out = next
  }
  return out
}

function base64(s: string): string {
  let binary = ''
  for (const byte of new TextEncoder().encode(s)) binary += String.fromCharCode(byte)
  return btoa(binary)
}
