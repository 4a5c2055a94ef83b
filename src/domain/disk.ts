// How the free space of the data directory stands against the minimum the hub keeps (PRINTHUB_MIN_FREE_MB, a
// setting): the one place that says what full and low are, for the running hub's disk guard and the doctor alike.

export interface DiskStatus {
  /** Free space for the hub (what a non-root user may still write), in MB. */
  freeMb: number
  minFreeMb: number
  /** Under the minimum: new jobs are refused. */
  full: boolean
  /** Under twice the minimum: close to full, so retention keeps only the shortest period (see Housekeeping). */
  low: boolean
}

/** How the free space stands against the minimum. */
export function diskStatus(freeMb: number, minFreeMb: number): DiskStatus {
  return { freeMb, minFreeMb, full: freeMb < minFreeMb, low: freeMb < 2 * minFreeMb }
}

/** The card's life, in the four words the doctor and the dashboard say it with. */
export type CardWear = 'ok' | 'low' | 'worn' | 'unknown'

/**
 * How worn the data disk is, from what the card reports of itself (`life_time`: the life used, in percent;
 * `pre_eol_info`: its spare blocks): worn from 90 % used or an urgent word on its spare blocks (replace it soon), low
 * from 70 % or a warning (plan its replacement), unknown when it reports neither (most SD cards).
 */
export function cardWear(lifeUsed?: { from: number }, endOfLife?: 'normal' | 'warning' | 'urgent'): CardWear {
  if ((lifeUsed && lifeUsed.from >= 90) || endOfLife === 'urgent') return 'worn'
  if ((lifeUsed && lifeUsed.from >= 70) || endOfLife === 'warning') return 'low'
  return lifeUsed || endOfLife ? 'ok' : 'unknown'
}

/** Bytes a day, from bytes written over a time in seconds (none over no time). */
export function perDay(bytes: number, seconds: number): number {
  return seconds > 0 ? Math.round((bytes * 86_400) / seconds) : 0
}
