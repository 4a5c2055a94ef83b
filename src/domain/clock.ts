// The system clock's jumps as the hub's records keep them (services/clock.ts notices them).

/** The setting that keeps the newest jump: `{ at, byMs }`, `at` the wall clock's time just after it. */
export const CLOCK_JUMP_SETTING = 'clock_jump'

export interface RecordedJump {
  at: number
  byMs: number
}

/** The newest jump as the setting keeps it; undefined when there was none (or it cannot be read). */
export function recordedJump(value: string | undefined): RecordedJump | undefined {
  if (value === undefined) return undefined
  try {
    const { at, byMs } = JSON.parse(value) as Partial<RecordedJump>
    return typeof at === 'number' && typeof byMs === 'number' ? { at, byMs } : undefined
  } catch {
    return undefined
  }
}

/**
 * An age limit's cutoff (`now - days`) as what was written before the newest jump needs it: a clock that jumped
 * forward made every older timestamp look `byMs` older than it is, so until the cutoff has passed the jump, the
 * cutoff moves back by as much (a jump forward of a year prunes no history early). A jump back makes older
 * timestamps look younger: they are kept longer by as much, never for ever.
 */
export function cutoffBeforeJump(cutoff: number, jump: RecordedJump | undefined): number {
  return jump && jump.byMs > 0 && cutoff < jump.at ? cutoff - jump.byMs : cutoff
}

/** "forward by 365 days", "back by 3 h 20 min", "forward by 12 s". */
export function jumpDistance(byMs: number): string {
  const direction = byMs > 0 ? 'forward' : 'back'
  const ms = Math.abs(byMs)
  if (ms < 60_000) return `${direction} by ${Math.round(ms / 1000)} s`
  // To the nearest minute: a jump measured across a second's look is a few milliseconds off.
  const minutes = Math.round(ms / 60_000)
  const days = Math.floor(minutes / 1_440)
  const hours = Math.floor((minutes % 1_440) / 60)
  const parts =
    days > 0
      ? [`${days} day${days === 1 ? '' : 's'}`, hours > 0 ? `${hours} h` : '']
      : [hours > 0 ? `${hours} h` : '', minutes % 60 > 0 ? `${minutes % 60} min` : '']
  return `${direction} by ${parts.filter(Boolean).join(' ')}`
}
