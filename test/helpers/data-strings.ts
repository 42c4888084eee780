import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'

/** Every string of at least `min` characters in a gzipped JSON file under `test/data/`. */
export function dataStrings(file: string, min: number): string[] {
  const out: string[] = []
  JSON.parse(
    gunzipSync(readFileSync(new URL(`../data/${file}`, import.meta.url))).toString(),
    (_, v) => {
      if (typeof v === 'string' && v.length >= min) out.push(v)
      return v
    },
  )
  return out
}
