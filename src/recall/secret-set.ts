import { CREDENTIAL_MARK } from '../messages/credentials.js'

/** What a credential is replaced by (the filter's own mark). */
export const MARK = CREDENTIAL_MARK
/** Code units of the prefix secrets are found by (the shortest secret a message gives is 4). */
const PREFIX = 4

/**
 * The credentials a history holds, each added once, and a text with every one of them it
 * holds replaced. Replacing goes longest first (the first seen first among equals), as if
 * each secret were tried in turn; only the secrets whose first four code units occur in the
 * text are tried, so a text costs its length plus the secrets it holds, however many the
 * history has.
 */
export class SecretSet {
  /** Each secret and its place in the order of arrival. */
  private readonly order = new Map<string, number>()
  /** Secrets by their first four code units. */
  private readonly byPrefix = new Map<string, string[]>()
  /** Secrets shorter than the prefix (none from a message's credentials; kept for safety). */
  private readonly short: string[] = []

  /** A set holding the same secrets, in the same order, added to apart from this one. */
  copy(): SecretSet {
    const out = new SecretSet()
    for (const s of this.order.keys()) out.add(s)
    return out
  }

  add(secret: string): void {
    if (secret === '' || this.order.has(secret)) return
    this.order.set(secret, this.order.size)
    if (secret.length < PREFIX) {
      this.short.push(secret)
      return
    }
    const key = secret.slice(0, PREFIX)
    const list = this.byPrefix.get(key)
    if (list) list.push(secret)
    else this.byPrefix.set(key, [secret])
  }

  /** The secrets `text` holds (by prefix, then checked whole). */
  private held(text: string): string[] {
    const out: string[] = []
    for (const s of this.short) if (text.includes(s)) out.push(s)
    if (this.byPrefix.size === 0) return out
    for (let i = 0; i + PREFIX <= text.length; i++) {
      const list = this.byPrefix.get(text.slice(i, i + PREFIX))
      if (list) for (const s of list) if (text.startsWith(s, i)) out.push(s)
    }
    return out
  }

  /** Orders secrets as they are tried: longest first, then in the order they arrived. */
  private rank(list: string[]): string[] {
    return [...new Set(list)].sort(
      (a, b) =>
        b.length - a.length || (this.order.get(a) as number) - (this.order.get(b) as number),
    )
  }

  /**
   * `text` with each secret it holds replaced by the mark. A replacement can make a later
   * secret appear (the mark beside the text): after one, the text is read again for the
   * secrets still to be tried.
   */
  redact(text: string): string {
    if (this.order.size === 0) return text
    let out = text
    let queue = this.rank(this.held(out))
    while (queue.length > 0) {
      const s = queue.shift() as string
      if (!out.includes(s)) continue
      out = out.split(s).join(MARK)
      const at = this.order.get(s) as number
      // Only secrets after `s` in the order are tried from here on.
      queue = this.rank(
        this.held(out).filter(
          (x) =>
            x.length < s.length || (x.length === s.length && (this.order.get(x) as number) > at),
        ),
      )
    }
    return out
  }
}
