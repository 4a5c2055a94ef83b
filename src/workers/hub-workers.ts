// The hub's background workers and how often each runs: the one place they are put together and
// scheduled (workers.ts runs them). Each pass is the work of a part that lives elsewhere: what a
// change is stays in its operation of services/ (retention, failover's moves, the webhooks' outbox,
// the settings), what a worker holds in its own file here (the disk guard, the scheduled backups,
// the receipt pictures' thread).
import type { Log } from '../platform/log.ts'
import type { ClockWatch } from '../services/clock.ts'
import type { Failover } from '../services/failover.ts'
import type { Housekeeping } from '../services/housekeeping.ts'
import type { LiveSettings } from '../services/live-settings.ts'
import type { WebhookSender } from '../services/webhooks.ts'
import type { BackupSchedule } from './backup-schedule.ts'
import type { DiskGuard } from './disk-guard.ts'
import type { ReceiptImages } from './receipt-images.ts'
import { Workers } from './workers.ts'

/** How soon a setting changed by `printhub settings set` (another process) takes effect. */
export const SETTINGS_RELOAD_MS = 2_000
/** How often the free space is asked of the file system. */
export const DISK_CHECK_MS = 2_000
/** How often the failover watch looks at destinations' printers (a query a second when there are none). */
export const FAILOVER_WATCH_MS = 1_000
/** How often the webhooks' outbox is looked at, beside each new event of a project with a webhook. */
export const WEBHOOKS_MS = 1_000
/** How often the hub compares the system clock with its own (services/clock.ts). */
export const CLOCK_LOOK_MS = 1_000
/** How often the hub looks for what has aged out. */
export const RETENTION_MS = 60_000
/**
 * The first look, soon after the start: a hub that was off for days (or had its retention shortened) prunes then, not
 * a minute later, and a power cut during it is tested (test/delivery/power-cut.test.ts).
 */
export const RETENTION_FIRST_MS = 1_000

/** The parts whose work runs in the background. */
export interface HubWork {
  settings: LiveSettings
  disk: DiskGuard
  failover: Failover
  webhooks: WebhookSender
  housekeeping: Housekeeping
  backups: BackupSchedule
  receipts: ReceiptImages
  /** The system clock's watch (none when a test gives the hub its time). */
  clock?: ClockWatch
  /** The hub's log: each worker speaks as its component (retention, failover, webhooks, disk, backup). */
  logs: Log
}

export function hubWorkers(work: HubWork): Workers {
  let stopListening = () => {}
  return new Workers(work.logs.for('hub'))
    .add({ name: 'settings', everyMs: SETTINGS_RELOAD_MS, pass: () => work.settings.reload() })
    .add({ name: 'disk', log: work.logs.for('disk'), everyMs: DISK_CHECK_MS, pass: () => work.disk.check() })
    .add({
      name: 'failover',
      log: work.logs.for('failover'),
      everyMs: FAILOVER_WATCH_MS,
      pass: () => work.failover.watch(),
    })
    .add({
      name: 'webhooks',
      log: work.logs.for('webhooks'),
      everyMs: WEBHOOKS_MS,
      firstAfterMs: 0,
      pass: () => work.webhooks.tick(),
      start: (wake) => (stopListening = work.webhooks.listen(wake)),
      stop: () => {
        stopListening()
        work.webhooks.stop()
      },
    })
    .add({
      name: 'clock',
      log: work.logs.for('clock'),
      everyMs: CLOCK_LOOK_MS,
      pass: async () => void (await work.clock?.look()),
    })
    .add({
      name: 'retention',
      log: work.logs.for('retention'),
      everyMs: RETENTION_MS,
      firstAfterMs: RETENTION_FIRST_MS,
      pass: (signal) => work.housekeeping.pass(signal),
    })
    .add({
      name: 'backup',
      log: work.logs.for('backup'),
      everyMs: work.backups.times.checkMs,
      firstAfterMs: work.backups.times.firstCheckMs,
      pass: () => work.backups.check(),
      stop: () => work.backups.stop(),
    })
    .add({ name: 'receipt pictures', stop: () => work.receipts.close() })
}
