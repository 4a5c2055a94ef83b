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
