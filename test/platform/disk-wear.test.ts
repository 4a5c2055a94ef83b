// The data disk as the kernel tells it (platform/disk-wear.ts), from sysfs trees laid out as a Raspberry Pi's kernel
// lays them out, and from this machine's own; and the words the doctor makes of it.
import { afterEach, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { cardWear, perDay } from '../../src/domain/disk.ts'
import { diskWearFinding } from '../../src/doctor/disk-wear.ts'
import { deviceNumber, diskWear, ownWrittenBytes } from '../../src/platform/disk-wear.ts'

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

/** A sysfs and procfs with one card, `mmcblk0`, and its second partition (179:2) holding the data. */
function piTree(card: Record<string, string>, sectorsWritten = 2_000_000): { sys: string; proc: string } {
  const root = mkdtempSync(join(tmpdir(), 'printhub-sysfs-'))
  roots.push(root)
  const disk = join(root, 'sys/devices/platform/emmc2bus/fe340000.mmc/mmc_host/mmc0/mmc0:aaaa/block/mmcblk0')
  const write = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, `${text}\n`)
  }
  write(join(disk, 'stat'), `5000 10 400000 900 7000 300 ${sectorsWritten} 20000 0 9000 21000 0 0 0 0 0 0`)
  write(join(disk, 'mmcblk0p2', 'partition'), '2')
  for (const [name, text] of Object.entries(card)) write(join(disk, 'device', name), text)
  mkdirSync(join(root, 'sys/dev/block'), { recursive: true })
  symlinkSync(join(disk, 'mmcblk0p2'), join(root, 'sys/dev/block/179:2'))
  write(join(root, 'proc/uptime'), '172800.00 300000.00')
  return { sys: join(root, 'sys'), proc: join(root, 'proc') }
}

const PARTITION = 179 * 256 + 2

test('an eMMC that reports its life: the whole device, its writes since boot, the worse of its two estimates', () => {
  const roots = piTree({ type: 'MMC', life_time: '0x02 0x09', pre_eol_info: '0x01' })
  expect(diskWear('/', roots, PARTITION)).toEqual({
    device: 'mmcblk0',
    kind: 'mmc',
    writtenSinceBoot: 2_000_000 * 512,
    uptimeSeconds: 172_800,
    lifeUsed: { from: 80, to: 90 },
    endOfLife: 'normal',
  })
})

test('an SD card that reports nothing of its wear, and a card past its life', () => {
  expect(diskWear('/', piTree({ type: 'SD' }), PARTITION)).toEqual({
    device: 'mmcblk0',
    kind: 'sd',
    writtenSinceBoot: 2_000_000 * 512,
    uptimeSeconds: 172_800,
  })
  const worn = diskWear('/', piTree({ type: 'MMC', life_time: '0x0B 0x03', pre_eol_info: '0x03' }), PARTITION)
  expect(worn).toMatchObject({ lifeUsed: { from: 100, to: 100 }, endOfLife: 'urgent' })
  // Values the kernel never writes are not read as wear.
  expect(diskWear('/', piTree({ type: 'MMC', life_time: '0x00 0x0C', pre_eol_info: '0x07' }), PARTITION)).toEqual({
    device: 'mmcblk0',
    kind: 'mmc',
    writtenSinceBoot: 2_000_000 * 512,
    uptimeSeconds: 172_800,
  })
})

test('a device sysfs does not know, or no sysfs at all: nothing said', () => {
  expect(diskWear('/', piTree({ type: 'SD' }), 8 * 256 + 1)).toBeUndefined()
  expect(diskWear('/', { sys: '/nonexistent/sys', proc: '/proc' })).toBeUndefined()
})

test("device numbers as Linux encodes them, and this machine's own disk found from them", () => {
  expect(deviceNumber(PARTITION)).toBe('179:2')
  expect(deviceNumber(259 * 256)).toBe('259:0')
  // A minor over 255 (the 17th partition of an NVMe disk, say) and a major over 4095, as glibc's makedev packs them.
  const packed = (major: number, minor: number) =>
    (major & 0xfff) * 256 +
    (minor & 0xff) +
    (minor & 0xfff00) * 4096 +
    ((minor >>> 20) + (major >>> 12) * 4096) * 2 ** 32
  expect(deviceNumber(packed(259, 300))).toBe('259:300')
  expect(deviceNumber(packed(5000, 2_000_000))).toBe('5000:2000000')
  // The root file system's device, as mountinfo names it, is the one sysfs is asked about.
  const root = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .find((fields) => fields[4] === '/')
  expect(deviceNumber(statSync('/').dev)).toBe(root![2]!)
  const own = diskWear('/')
  if (own) expect(own.writtenSinceBoot).toBeGreaterThanOrEqual(0)
  expect(ownWrittenBytes()).toBeGreaterThanOrEqual(0)
})

test('the wear in a word, and writes a day', () => {
  expect(cardWear()).toBe('unknown')
  expect(cardWear({ from: 0 })).toBe('ok')
  expect(cardWear(undefined, 'normal')).toBe('ok')
  expect(cardWear({ from: 70 })).toBe('low')
  expect(cardWear({ from: 10 }, 'warning')).toBe('low')
  expect(cardWear({ from: 90 })).toBe('worn')
  expect(cardWear({ from: 0 }, 'urgent')).toBe('worn')
  expect(perDay(1_000, 43_200)).toBe(2_000)
  expect(perDay(1_000, 0)).toBe(0)
})

test("the doctor's words: what is written a day, and what to do with a card near its end", () => {
  const base = { device: 'mmcblk0', writtenSinceBoot: 2 * 1024 ** 3, uptimeSeconds: 172_800 }
  expect(diskWearFinding({ ...base, kind: 'sd' })).toEqual({
    check: 'data disk',
    verdict: 'ok',
    detail:
      'mmcblk0 (SD card): 1.0 GB written a day (2.0 GB in the 2.0 days since the machine started); ' +
      'the card does not report its wear',
  })
  const low = diskWearFinding({ ...base, kind: 'mmc', lifeUsed: { from: 70, to: 80 }, endOfLife: 'normal' })
  expect(low.verdict).toBe('warn')
  expect(low.detail).toContain('70-80 % of its life used, as the card reports it. The card has used most of its life')
  const worn = diskWearFinding({ ...base, kind: 'mmc', lifeUsed: { from: 20, to: 30 }, endOfLife: 'urgent' })
  expect(worn.verdict).toBe('fail')
  expect(worn.detail).toContain('its spare blocks: urgent. The card is nearly worn out: make a backup now')
  expect(diskWearFinding(undefined).verdict).toBe('ok')
})
