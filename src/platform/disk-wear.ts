// What the kernel says of the disk that holds the data directory (an SD card or eMMC on a Raspberry
// Pi): its name, what kind of device it is, the bytes written to it since the machine started, and,
// where the card reports it (eMMC 5.0 and later, some industrial SD cards, through the kernel's MMC
// driver), how much of its life it has used: `life_time` (two estimates, for its two kinds of flash,
// in steps of 10 %: 0x01 is 0-10 % used, 0x0A 90-100 %, 0x0B past its life) and `pre_eol_info` (its
// reserve of spare blocks: 0x01 normal, 0x02 warning at 80 % used, 0x03 urgent at 90 %). Read from
// sysfs; `roots` lets tests give a tree of their own.
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'

export type DiskKind = 'sd' | 'mmc' | 'other'
export type EndOfLife = 'normal' | 'warning' | 'urgent'

export interface DiskWear {
  /** The whole device's name (`mmcblk0`), not the partition's. */
  device: string
  kind: DiskKind
  /** Bytes written to the device since the machine started, and the seconds since then. */
  writtenSinceBoot: number
  uptimeSeconds: number
  /** The card's own estimate of the life it has used, in percent (the worse of its two), when it reports one. */
  lifeUsed?: { from: number; to: number }
  /** The card's own word on its spare blocks, when it reports it. */
  endOfLife?: EndOfLife
}

export interface WearRoots {
  /** Where sysfs is (`/sys`). */
  sys: string
  /** Where procfs is (`/proc`), for the uptime. */
  proc: string
}

const SYSTEM: WearRoots = { sys: '/sys', proc: '/proc' }
const SECTOR_BYTES = 512
/** Field 7 of a block device's `stat`: sectors written (Documentation/block/stat.rst). */
const SECTORS_WRITTEN_FIELD = 6

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim()
  } catch {
    return undefined
  }
}

/** A `dev_t` as Linux encodes it, as `MAJOR:MINOR`. */
export function deviceNumber(dev: number): string {
  const high = Math.floor(dev / 2 ** 32)
  const low = dev % 2 ** 32
  const major = ((low >>> 8) & 0xfff) | ((high & 0xfffff000) >>> 0)
  const minor = ((low & 0xff) | ((low >>> 12) & 0xfff00) | ((high & 0xfff) << 20)) >>> 0
  return `${major}:${minor}`
}

/** The step of `life_time` (0x01-0x0B) as the range of life used, in percent. */
function lifeRange(step: number): { from: number; to: number } | undefined {
  if (!Number.isInteger(step) || step < 1 || step > 11) return undefined
  return step === 11 ? { from: 100, to: 100 } : { from: (step - 1) * 10, to: step * 10 }
}

function lifeUsed(text: string | undefined): { from: number; to: number } | undefined {
  const ranges = (text ?? '')
    .split(/\s+/)
    .map((value) => lifeRange(Number.parseInt(value, 16)))
    .filter((range) => range !== undefined)
  if (ranges.length === 0) return undefined
  return ranges.reduce((worst, range) => (range.from > worst.from ? range : worst))
}

function endOfLife(text: string | undefined): EndOfLife | undefined {
  return (['normal', 'warning', 'urgent'] as const)[Number.parseInt(text ?? '', 16) - 1]
}

/** What the kernel says of the disk under `path`; undefined where it says nothing (no sysfs, a network file system). */
export function diskWear(path: string, roots: WearRoots = SYSTEM, dev = statSync(path).dev): DiskWear | undefined {
  let block: string
  try {
    block = realpathSync(join(roots.sys, 'dev', 'block', deviceNumber(dev)))
  } catch {
    return undefined
  }
  // A partition's folder sits in its disk's, and has a `partition` file.
  const disk = existsSync(join(block, 'partition')) ? dirname(block) : block
  const written = Number(read(join(disk, 'stat'))?.split(/\s+/)[SECTORS_WRITTEN_FIELD])
  const uptime = Number(read(join(roots.proc, 'uptime'))?.split(/\s+/)[0])
  if (!Number.isFinite(written) || !Number.isFinite(uptime)) return undefined
  const type = read(join(disk, 'device', 'type'))
  const wear: DiskWear = {
    device: basename(disk),
    kind: type === 'SD' ? 'sd' : type === 'MMC' ? 'mmc' : 'other',
    writtenSinceBoot: written * SECTOR_BYTES,
    uptimeSeconds: uptime,
  }
  const used = lifeUsed(read(join(disk, 'device', 'life_time')))
  if (used) wear.lifeUsed = used
  const eol = endOfLife(read(join(disk, 'device', 'pre_eol_info')))
  if (eol) wear.endOfLife = eol
  return wear
}

/** Bytes this process has written to storage so far (`write_bytes` of /proc/self/io); undefined where there is none. */
export function ownWrittenBytes(proc = SYSTEM.proc): number | undefined {
  const found = /^write_bytes: (\d+)$/m.exec(read(join(proc, 'self', 'io')) ?? '')
  return found ? Number(found[1]) : undefined
}
