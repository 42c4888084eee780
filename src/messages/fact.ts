// What a summary must keep of the messages it replaces, and how well it did: plain data,
// carried by summaries in the result and the ledger.

/** What kind of thing a fact is; the order is the order of priority when room is short. */
export type FactKind = 'id' | 'email' | 'url' | 'path' | 'date' | 'amount' | 'tool' | 'quantity'

/** Something a summary must not lose: exact text, as it appeared. */
export interface Fact {
  kind: FactKind
  /** The text itself (`JG7FMM`, `2024-05-15`, `$1,250.00`, `get_user_details error`). */
  value: string
  /** Where it came from, when that names it (a JSON key such as `reservation_id`). */
  label?: string
}

/** How well one summary kept the facts of what it replaces. */
export interface FactReport {
  /** Facts found in the replaced messages (and in the summary they fold in). */
  total: number
  /** Already present: in the summarizer's text or in the messages sent beside it. */
  kept: number
  /** Missing from the summary, put back in its facts section. */
  reinserted: Fact[]
  /** Missing and left out for want of room within the budget. */
  lost: Fact[]
  /** `(kept + reinserted) / total`; 1 when there were no facts. */
  rate: number
}
