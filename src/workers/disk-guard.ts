// Watches the free space of the data directory, so that a full disk is an answer, never a 500: below
// the minimum (PRINTHUB_MIN_FREE_MB, a setting) new jobs are refused with 507 storage_full while
// reads and the delivery of accepted jobs go on, and /health says why. Asked of the file system
// every 2 s by the hub's workers (workers/hub-workers.ts), not per request; when space comes back,
// jobs are taken again by themselves.
import { statfsSync } from 'node:fs'
import { type DiskStatus, diskStatus } from '../domain/disk.ts'
import type { Logger } from '../platform/log.ts'

export type { DiskStatus }

const MB = 1_048_576

export class DiskGuard {
  private status: DiskStatus

  constructor(
    private readonly dataDir: string,
    /** The minimum now (a setting the dashboard changes). */
    private readonly minFreeMb: () => number,
    /** Where the disk's filling up and having room again are told (component disk). */
    private readonly log?: Logger,
  ) {
    this.status = this.measure()
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
