// The system clock's jumps as the hub lives through them. The hub's time runs on the monotonic clock
// (platform/hub-clock.ts); a look a second notices when the wall clock was set away from it. Then what waits for a
// time to come (job expiry and retries, sessions, pairing codes, the setup link, webhook deliveries) moves by as
// much, so that each keeps the time it had left, and the hub's time follows the wall clock. The jump is logged once
// and written to the audit log; timestamps already written (a job's createdAt) stay as the hub knew them, and the
// audit entry says from when they are on the other clock. Age limits (retention) read the jump too.
import { CLOCK_JUMP_SETTING, jumpDistance } from '../domain/clock.ts'
import type { ClockJump, HubClock } from '../platform/hub-clock.ts'
import type { Logger } from '../platform/log.ts'
import type { UnitRunner } from '../storage/repositories.ts'
import { THE_MACHINE } from './actor.ts'
import { recordedChange } from './audit.ts'

export class ClockWatch {
  /** A jump back the hub's time followed before its deadlines could be moved (the write failed): moved next look. */
  private unmoved: ClockJump | undefined

  constructor(
    private readonly units: UnitRunner,
    private readonly clock: HubClock,
    private readonly log: Logger,
    /** What keeps times of its own in memory (printers that poll), told as the hub's time follows a jump. */
    private readonly followers: ((byMs: number) => void)[] = [],
  ) {}

  /** One look at the system clock; a jump moves what waits, is logged and audited. The jump, when there was one. */
  async look(): Promise<ClockJump | undefined> {
    const jump = this.unmoved ?? this.clock.look()
    if (!jump) return undefined
    // Never, even for a moment, is a deadline nearer than it was: back, the hub's time follows before the deadlines
    // move back; forward, after they moved on. A failure (a disk error) leaves the move for the next look either way.
    if (jump.byMs < 0 && !this.unmoved) {
      this.follow(jump.byMs)
      this.unmoved = jump
    }
    const target = `${new Date(jump.from).toISOString()} → ${new Date(jump.to).toISOString()}`
    const moved = await this.units.write(function* (db) {
      const moved = yield* db.clock.shiftDeadlines(jump.byMs)
      yield* db.settings.set(CLOCK_JUMP_SETTING, JSON.stringify({ at: jump.to, byMs: jump.byMs }))
      yield* recordedChange(db, { actor: THE_MACHINE, action: 'hub.clock', target })
      return moved
    })
    this.unmoved = undefined
    if (jump.byMs > 0) this.follow(jump.byMs)
    this.log.warn(
      `the system clock jumped ${jumpDistance(jump.byMs)}; what waits kept the time it had left (${moved} moved), ` +
        'and times written before are as the hub knew them',
      { from: new Date(jump.from).toISOString(), to: new Date(jump.to).toISOString() },
    )
    return jump
  }

  private follow(byMs: number): void {
    this.clock.follow()
    for (const follower of this.followers) follower(byMs)
  }
}
