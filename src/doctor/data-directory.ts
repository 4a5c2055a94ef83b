// The doctor's check of the data directory: there, writable, and with room for jobs (what fills it
// when it is nearly full).
import { existsSync, lstatSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { RETENTION_DAYS } from '../domain/settings.ts'
import { diskStatus } from '../domain/disk.ts'
import type { Finding } from './finding.ts'

const MIB = 1024 * 1024

/** The largest entries of a directory (a folder counts with everything in it), biggest first, in words. */
function largestEntries(dir: string, count: number): string {
  let budget = 10_000
  const sizeOf = (path: string): number => {
    if (--budget < 0) return 0
    try {
      const stat = lstatSync(path)
      if (!stat.isDirectory()) return stat.size
      return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0)
    } catch {
      return 0
    }
  }
  const entries = readdirSync(dir).map((name) => ({ name, size: sizeOf(join(dir, name)) }))
  entries.sort((a, b) => b.size - a.size)
  return entries
    .slice(0, count)
    .map(
      ({ name, size }) =>
        `${name} ${size >= 1024 * MIB ? `${(size / 1024 / MIB).toFixed(1)} GB` : `${Math.round(size / MIB)} MB`}`,
    )
    .join(', ')
}

export function dataDirectory(dataDir: string, minFreeMb: number): Finding {
  if (!existsSync(dataDir))
    return {
      check: 'data directory',
      verdict: 'fail',
      detail: `${dataDir} does not exist: run "printhub init --data ${dataDir}" (or start the hub once).`,
    }
  const probe = join(dataDir, `.doctor-${process.pid}`)
  try {
    writeFileSync(probe, '')
    rmSync(probe)
  } catch (error) {
    return {
      check: 'data directory',
      verdict: 'fail',
      detail:
        `${dataDir} is not writable by this user ` +
        `(${(error as NodeJS.ErrnoException).code}): the hub could not store ` +
        `jobs. Give it to the user the hub runs as.`,
    }
  }
  const stats = statfsSync(dataDir)
  const free = stats.bavail * stats.bsize
  const amount = free >= 1024 * MIB ? `${(free / 1024 / MIB).toFixed(1)} GB` : `${Math.floor(free / MIB)} MB`
  const status = diskStatus(Math.floor(free / MIB), minFreeMb)
  if (status.low) {
    const what = `in it: ${largestEntries(dataDir, 3) || 'nothing'} (the rest of the file system holds the rest)`
    if (status.full)
      return {
        check: 'data directory',
        verdict: 'fail',
        detail:
          `${dataDir}: only ${amount} free, under the hub's minimum of ${minFreeMb} ` +
          `MB: new jobs are refused. ${what}. Free some space, or lower the ` +
          `retention (printhub settings set retention-days).`,
      }
    return {
      check: 'data directory',
      verdict: 'warn',
      detail:
        `${dataDir}: ${amount} free, close to the hub's minimum of ${minFreeMb} ` +
        `MB (the hub keeps finished jobs only ${RETENTION_DAYS.min} day while it ` +
        `is); ${what}.`,
    }
  }
  return { check: 'data directory', verdict: 'ok', detail: `${dataDir}, writable, ${amount} free` }
}
