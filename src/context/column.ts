type Typed = Int32Array | Float64Array | Uint8Array

/**
 * A growable run of numbers in a typed array: what a history index keeps per message and
 * per unit, without an object per entry. A position fits in 4 bytes and a kind in 1; counts
 * and sums keep a float64 each, as a counter may return any number.
 */
export class Column<T extends Typed = Int32Array> {
  private data: T
  private size = 0

  constructor(private readonly make: (n: number) => T) {
    this.data = make(16)
  }

  get length(): number {
    return this.size
  }

  push(v: number): void {
    if (this.size === this.data.length) {
      const next = this.make(this.data.length + (this.data.length >> 1))
      next.set(this.data)
      this.data = next
    }
    this.data[this.size++] = v
  }

  /** The value at `i`, or `undefined` outside `[0, length)`. */
  at(i: number): number | undefined {
    return i >= 0 && i < this.size ? this.data[i] : undefined
  }

  /** Keeps the first `n` values. */
  truncate(n: number): void {
    if (n < this.size) this.size = n
  }

  /** The values as they are now, sharing storage: a later push may or may not show through. */
  values(): T {
    return this.data.subarray(0, this.size) as T
  }

  /** A copy that does not change when this one does. */
  copy(): Column<T> {
    const out = new Column(this.make)
    out.data = this.data.slice(0, Math.max(16, this.size)) as T
    out.size = this.size
    return out
  }
}

export const int32 = (): Column<Int32Array> => new Column((n) => new Int32Array(n))
export const float64 = (): Column<Float64Array> => new Column((n) => new Float64Array(n))
export const bytes = (): Column<Uint8Array> => new Column((n) => new Uint8Array(n))
