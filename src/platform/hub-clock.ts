// The hub's clock. A Raspberry Pi has no battery-backed clock: it starts hours or days behind (fake-hwclock gives
// back the last time saved) and jumps when the network's time arrives, by years on a new board; and someone may set
// the time by hand. Intervals (a job's expiry, a retry's wait, a session's idle time, a pairing code's life) must not
// jump with it. So the hub's time is the wall clock read once, at the start, plus the monotonic clock's time since:
// it moves as time passes, not when the wall clock is set. Each look (a second apart) compares the two: within a few
// seconds (the wall clock slewed by NTP) the hub's time follows the wall clock quietly; beyond, it is a jump, which
// the caller moves the waiting deadlines by (services/clock.ts) before or after the hub's time follows.

/** How far the wall clock may move from the hub's time between two looks before it is a jump. */
export const CLOCK_JUMP_MS = 5_000

/** The wall clock moved `byMs` from the hub's time: `from` is the hub's time then, `to` the wall clock's. */
export interface ClockJump {
  from: number
  to: number
  byMs: number
}

export interface ClockSources {
  /** Milliseconds since the epoch (Date.now). */
  wall(): number
  /** Milliseconds from any start, never set (performance.now). */
  monotonic(): number
}

const SYSTEM: ClockSources = { wall: Date.now, monotonic: () => performance.now() }

export class HubClock {
  private wallAt: number
  private monotonicAt: number

  constructor(private readonly sources: ClockSources = SYSTEM) {
    this.wallAt = sources.wall()
    this.monotonicAt = sources.monotonic()
  }

  /** The hub's time, in milliseconds since the epoch. */
  readonly now = (): number => Math.floor(this.wallAt + (this.sources.monotonic() - this.monotonicAt))

  /**
   * Looks at the wall clock: undefined when it agrees with the hub's time (which then follows it, to stay with NTP's
   * slewing); a jump when it moved further. The hub's time does not follow a jump until `follow` is called.
   */
  look(): ClockJump | undefined {
    const to = this.sources.wall()
    const from = this.now()
    const byMs = to - from
    if (Math.abs(byMs) > CLOCK_JUMP_MS) return { from, to, byMs }
    this.follow()
    return undefined
  }

  /** The hub's time is the wall clock's from now on. */
  follow(): void {
    this.wallAt = this.sources.wall()
    this.monotonicAt = this.sources.monotonic()
  }
}
