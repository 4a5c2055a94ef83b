// The doctor's check of the data's disk as it ages: how much is written to it a day, and, where the
// card reports it (eMMC, some SD cards), how much of its life it has used, with what to do when it is low.
import { cardWear, perDay } from '../domain/disk.ts'
import { type DiskWear, diskWear } from '../platform/disk-wear.ts'
import type { Finding } from './finding.ts'

const MIB = 1024 * 1024
const KINDS = { sd: 'SD card', mmc: 'eMMC', other: 'disk' } as const

function size(bytes: number): string {
  return bytes >= 1024 * MIB ? `${(bytes / 1024 / MIB).toFixed(1)} GB` : `${Math.round(bytes / MIB)} MB`
}

export function diskWearFinding(wear: DiskWear | undefined): Finding {
  const check = 'data disk'
  if (!wear) return { check, verdict: 'ok', detail: 'the kernel says nothing of the data directory’s disk' }
  const hours = wear.uptimeSeconds / 3600
  const since = hours >= 24 ? `${(hours / 24).toFixed(1)} days` : `${Math.max(1, Math.round(hours))} hours`
  const written =
    `${wear.device} (${KINDS[wear.kind]}): ${size(perDay(wear.writtenSinceBoot, wear.uptimeSeconds))} written a day ` +
    `(${size(wear.writtenSinceBoot)} in the ${since} since the machine started)`
  const life = wear.lifeUsed
    ? `; ${wear.lifeUsed.from}-${wear.lifeUsed.to} % of its life used, as the card reports it`
    : ''
  const spare = wear.endOfLife && wear.endOfLife !== 'normal' ? `; its spare blocks: ${wear.endOfLife}` : ''
  switch (cardWear(wear.lifeUsed, wear.endOfLife)) {
    case 'worn':
      return {
        check,
        verdict: 'fail',
        detail:
          `${written}${life}${spare}. The card is nearly worn out: make a backup now ("printhub backup") and ` +
          'replace the card soon (restore the backup on the new one).',
      }
    case 'low':
      return {
        check,
        verdict: 'warn',
        detail:
          `${written}${life}${spare}. The card has used most of its life: plan to replace it ` +
          '(make a backup, then restore it on the new card).',
      }
    case 'ok':
      return { check, verdict: 'ok', detail: `${written}${life}` }
    default:
      return {
        check,
        verdict: 'ok',
        detail: wear.kind === 'other' ? written : `${written}; the card does not report its wear`,
      }
  }
}

/** What the kernel says of the disk of `dataDir`, as the doctor reads it; undefined when it says nothing. */
export function readDiskWear(dataDir: string): DiskWear | undefined {
  try {
    return diskWear(dataDir)
  } catch {
    return undefined
  }
}
