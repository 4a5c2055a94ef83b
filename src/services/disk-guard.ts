// Watches the free space of the data directory, so that a full disk is an answer, never a 500: below
// the minimum (PRINTHUB_MIN_FREE_MB, a setting) new jobs are refused with 507 storage_full while
// reads and the delivery of accepted jobs go on, and /health says why. Asked of the file system
// every few seconds, not per request; when space comes back, jobs are taken again by themselves.
import { statfsSync } from 'node:fs'
import type { Logger } from '../platform/log.ts'

/** How often the free space is asked of the file system. */
export const DISK_CHECK_MS = 2_000
const MB = 1_048_576

export interface DiskStatus {
  /** Free space for the hub (what a non-root user may still write), in MB. */
  freeMb: number
  minFreeMb: number
  /** Under the minimum: new jobs are refused. */
  full: boolean
  /** Under twice the minimum: close to full, so retention keeps only the shortest period (see Housekeeping). */
  low: boolean
}

/** How the free space stands against the minimum: the one place that says what full and low are. */
export function diskStatus(freeMb: number, minFreeMb: number): DiskStatus {
  return { freeMb, minFreeMb, full: freeMb < minFreeMb, low: freeMb < 2 * minFreeMb }
}

export class DiskGuard {
  private status: DiskStatus
  private timer: Timer | undefined

  constructor(
    private readonly dataDir: string,
    /** The minimum now (a setting the dashboard changes). */
    private readonly minFreeMb: () => number,
    /** Where the disk's filling up and having room again are told (component disk). */
    private readonly log?: Logger,
  ) {
    this.status = this.measure()
  }

  start(intervalMs: number = DISK_CHECK_MS): void {
    this.timer = setInterval(() => this.check(), intervalMs)
  }

  stop(): void {
    clearInterval(this.timer)
  }

  /** The status as last measured. */
  now(): DiskStatus {
    return this.status
  }

  /** Measures again at once; says so in the log when the disk became full, or has room again. */
  check(): DiskStatus {
    const before = this.status.full
    this.status = this.measure()
    if (this.status.full !== before) {
      const fields = { dir: this.dataDir, freeMb: this.status.freeMb, minFreeMb: this.status.minFreeMb }
      if (this.status.full)
        this.log?.error(
          `${this.status.freeMb} MB free, under the minimum of ` +
            `${this.status.minFreeMb} MB: new jobs are refused until there is room`,
          fields,
          { limit: 'disk' },
        )
      else this.log?.info(`room again (${this.status.freeMb} MB free): new jobs are taken`, fields, { limit: 'disk' })
    }
    return this.status
  }

  private measure(): DiskStatus {
    const minFreeMb = this.minFreeMb()
    try {
      const fs = statfsSync(this.dataDir)
      return diskStatus(Math.floor((fs.bavail * fs.bsize) / MB), minFreeMb)
    } catch {
      // Cannot be asked (the directory went away): say nothing is known rather than refuse jobs.
      return { freeMb: Number.NaN, minFreeMb, full: false, low: false }
    }
  }
}
