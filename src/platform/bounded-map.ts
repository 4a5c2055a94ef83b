// A map bounded in entries and in bytes (as its caller counts them): past either bound, the entries
// set longest ago go first. For what is kept in memory to spare work (a receipt's image, a new job's
// document as submitted), never for what must not be lost.
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, { value: V; bytes: number }>()
  private total = 0

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}

  /**
   * Keeps `value` (of `bytes`), pushing out the oldest entries as needed; one larger than the whole budget is not kept.
   */
  set(key: K, value: V, bytes: number): void {
    this.delete(key)
    if (bytes > this.maxBytes || this.maxEntries <= 0) return
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size < this.maxEntries && this.total + bytes <= this.maxBytes) break
      this.entries.delete(oldest)
      this.total -= entry.bytes
    }
    this.entries.set(key, { value, bytes })
    this.total += bytes
  }

  get(key: K): V | undefined {
    return this.entries.get(key)?.value
  }

  /** The entry, now counted as the newest (it goes last): for a cache of what was used recently. */
  touch(key: K): V | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.value
  }

  /** The entry, no longer kept. */
  take(key: K): V | undefined {
    const entry = this.entries.get(key)
    if (entry) this.delete(key)
    return entry?.value
  }

  delete(key: K): void {
    const entry = this.entries.get(key)
    if (!entry) return
    this.entries.delete(key)
    this.total -= entry.bytes
  }

  /** Keeps nothing any more. */
  clear(): void {
    this.entries.clear()
    this.total = 0
  }

  /** Bytes kept now. */
  get bytes(): number {
    return this.total
  }

  get size(): number {
    return this.entries.size
  }
}
