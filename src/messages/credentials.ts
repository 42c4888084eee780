// Provisional credential filter: replaced by the rule-based filter.
const KEY =
  /(?:^|_)(?:pass(?:word|wd|phrase|code)?|secrets?|tokens?|api_?keys?|auth(?:orization)?|credentials?|private_?keys?|cvv|cvc|ssn|pin)(?:_|$)/
const words = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[-\s]/g, '_')
    .toLowerCase()

export function isCredentialKey(key: string): boolean {
  return KEY.test(words(key)) && !/_id$/.test(words(key))
}

const VALUE =
  /(?:sk-[\w-]{8,}|sk_(?:live|test)_\w+|gh[pousr]_\w{20,}|xox[abpr]-[\w-]+|AKIA[0-9A-Z]{16}|AIza[\w-]{30,}|eyJ[\w-]+\.[\w-]+\.[\w-]+|-----BEGIN[\s\S]*)/g
const IN_TEXT =
  /\b(?:pass(?:word|wd|phrase)?|secrets?|token|api[_ -]?key|auth\w*|credentials?|private[_ -]?key|cvv|cvc|ssn|pin)["']?\s*(?:is|[:=])\s*["']?(?:(?:Bearer|Basic)\s+)?([^\s"',;]+)|\b(?:Bearer|Basic)\s+([^\s"',;]+)/gi

export function credentialSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = []
  for (const m of text.matchAll(VALUE)) spans.push([m.index, m.index + m[0].length])
  for (const m of text.matchAll(IN_TEXT)) {
    const v = (m[1] ?? m[2]) as string
    const at = m.index + m[0].lastIndexOf(v)
    spans.push([at, at + v.length])
  }
  spans.sort((a, b) => a[0] - b[0])
  const out: Array<[number, number]> = []
  for (const s of spans) {
    const last = out[out.length - 1]
    if (last && s[0] <= last[1]) last[1] = Math.max(last[1], s[1])
    else out.push([s[0], s[1]])
  }
  return out
}

export function isCredential(value: string): boolean {
  return credentialSpans(value).length > 0
}

export function redactCredentials(text: string): string {
  let out = ''
  let at = 0
  for (const [s, e] of credentialSpans(text)) {
    out += `${text.slice(at, s)}[credential]`
    at = e
  }
  return out + text.slice(at)
}
