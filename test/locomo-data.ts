import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'

/** LoCoMo dev conversations (snap-research/LoCoMo, CC BY-NC 4.0), kept in the repository. */
export const LOCOMO_DEV_PATH = fileURLToPath(
  new URL('./data/locomo/locomo-dev.json.gz', import.meta.url),
)

/** Reads a LoCoMo JSON file, gzipped or not. */
export function readLocomo(path: string = LOCOMO_DEV_PATH): unknown {
  const raw = readFileSync(path)
  const text =
    raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw).toString('utf8') : raw.toString('utf8')
  return JSON.parse(text)
}
