/** The heading the ledger of left-out messages opens with, written here apart from `src/`. */
const HEADING = '[Earlier messages were left out to fit the context window.'

/** Whether a message or item, in any SDK's shape, is the ledger the library inserts. */
export function isLedger(item: unknown): boolean {
  return JSON.stringify(item ?? null).includes(JSON.stringify(HEADING).slice(1, -1))
}
