/**
 * A deterministic local embedding for tests and evaluations: character trigrams of the
 * lower-cased words, hashed (FNV-1a) into `dims` buckets. No model, no network; it finds
 * texts sharing word pieces ("adopt" / "adoption"), not meaning.
 */
export function hashedNgrams(dims = 512): (texts: string[]) => number[][] {
  return (texts) =>
    texts.map((text) => {
      const v = new Array<number>(dims).fill(0)
      for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
        const w = ` ${word} `
        for (let i = 0; i + 3 <= w.length; i++) {
          let h = 0x811c9dc5
          for (let k = i; k < i + 3; k++) h = Math.imul(h ^ w.charCodeAt(k), 0x01000193)
          v[(h >>> 0) % dims] = (v[(h >>> 0) % dims] as number) + 1
        }
      }
      return v
    })
}
