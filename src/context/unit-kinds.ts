import type { UnitKind } from '../messages/units.js'

/** A unit kind as the one byte a history index keeps per unit, and back. */
export const kindCode: Readonly<Record<UnitKind, number>> = {
  system: 0,
  exchange: 1,
  message: 2,
  orphan: 3,
}

export const kindOf: readonly UnitKind[] = ['system', 'exchange', 'message', 'orphan']
