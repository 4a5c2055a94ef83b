// Connections that have not authenticated yet, bounded: anyone on the LAN may open the gateway,
// and each open connection may hold a frame that is still arriving (up to the WebSocket payload
// limit) until its authentication deadline. Capped in total and per remote address, a crowd of
// strangers holds a bounded amount of memory, and paired agents, which authenticate at once, still
// get in. An agent's place is given back the moment it has authenticated, or its connection ends.

/** Connections still authenticating, at most, in all. */
export const MAX_UNAUTHENTICATED = 16
/** Connections still authenticating, at most, from one remote address. */
export const MAX_UNAUTHENTICATED_PER_ADDRESS = 4
/** What a refused connection is told to wait before it tries again. */
export const ADMISSION_RETRY_AFTER_MS = 10_000
/**
 * A place is given back after this long whatever happens (the session closes a connection that
 * has not authenticated after 10 s): a connection the WebSocket layer never reported closed cannot
 * keep its place for ever.
 */
export const ADMISSION_MAX_HOLD_MS = 15_000

/** A place among the connections still authenticating; released once, whatever calls it. */
export interface Admission {
  release(): void
}

export class PreAuthAdmission {
  private total = 0
  private readonly byAddress = new Map<string, number>()

  constructor(
    private readonly bounds = {
      total: MAX_UNAUTHENTICATED,
      perAddress: MAX_UNAUTHENTICATED_PER_ADDRESS,
      maxHoldMs: ADMISSION_MAX_HOLD_MS,
    },
  ) {}

  /** A place for a connection from `address`, or undefined when there is none now. */
  admit(address: string): Admission | undefined {
    const fromAddress = this.byAddress.get(address) ?? 0
    if (this.total >= this.bounds.total || fromAddress >= this.bounds.perAddress) return undefined
    this.total++
    this.byAddress.set(address, fromAddress + 1)
    let released = false
    const release = () => {
      if (released) return
      released = true
      clearTimeout(timer)
      this.total--
      const left = (this.byAddress.get(address) ?? 1) - 1
      if (left > 0) this.byAddress.set(address, left)
      else this.byAddress.delete(address)
    }
    const timer = setTimeout(release, this.bounds.maxHoldMs)
    timer.unref()
    return { release }
  }

  /** Connections still authenticating now. */
  get pending(): number {
    return this.total
  }
}
