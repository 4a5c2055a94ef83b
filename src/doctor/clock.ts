// The doctor's checks of the clock: set at all (a Pi without a network starts in 1970), and not
// behind the newest job (it went back).
import type { StoreInspection } from '../store/inspection.ts'
import type { Finding } from './finding.ts'

/** The earliest plausible date: a Pi without a network has no real-time clock and starts in 1970. */
const EARLIEST_PLAUSIBLE = Date.UTC(2026, 0, 1)
/** Clocks may step back a little (NTP); more than this behind the newest job means it was wrong. */
const CLOCK_SLACK_MS = 5 * 60_000

export function clock(now: number): Finding {
  if (now < EARLIEST_PLAUSIBLE) {
    return {
      check: 'clock',
      verdict: 'fail',
      detail:
        `the clock says ${new Date(now).toISOString()}: it is not set. A ` +
        `Raspberry Pi has no battery clock; connect it to a network with NTP ` +
        `(timedatectl set-ntp true). Job expiry depends on it.`,
    }
  }
  return { check: 'clock', verdict: 'ok', detail: new Date(now).toISOString() }
}

/** The newest job cannot be from the future: if it is, the clock went back. */
export function clockAgainstJobs(database: StoreInspection | undefined, now: number): Finding[] {
  if (!database) return []
  try {
    const newest = database.newestJobAt()
    if (newest && newest > now + CLOCK_SLACK_MS) {
      return [
        {
          check: 'clock',
          verdict: 'fail',
          detail:
            `a job was created at ${new Date(newest).toISOString()}, after what the ` +
            `clock says now: the clock went back. Fix it (NTP) before jobs expire at ` +
            `the wrong time.`,
        },
      ]
    }
  } catch {
    // A damaged database is reported by its own check.
  }
  return []
}
