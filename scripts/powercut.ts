// Power cuts for the tests and `bun run bench power`: powercut-fs (scripts/powercut-fs.c), a FUSE file
// system that keeps every write not yet flushed apart, as a disk's page cache does, and on a cut
// writes a random (seeded) part of it and loses the rest, as a power cut may; and a new boot as the
// hub sees one (the kernel's boot ID, read from /proc, replaced in a mount namespace of its own), so
// that what it trusts only within one boot is not trusted after the cut. Needs root, /dev/fuse,
// fusermount3, a C compiler and the FUSE library's headers (npm test installs the last three).
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const SOURCE = join(import.meta.dir, 'powercut-fs.c')
const MOUNT_TIMEOUT_MS = 5_000

/** powercut-fs, built once for its source (in the system's temporary folder); its path. */
export function powercutFs(): string {
  const source = readFileSync(SOURCE)
  const binary = join(
    tmpdir(),
    `printhub-powercut-fs-${createHash('sha256').update(source).digest('hex').slice(0, 16)}`,
  )
  if (existsSync(binary)) return binary
  const built = Bun.spawnSync(
    ['cc', '-O2', '-Wall', '-o', `${binary}.building`, SOURCE, '-I/usr/include/fuse3', '-lfuse3', '-lpthread'],
    { stdout: 'pipe', stderr: 'pipe' },
  )
  if (built.exitCode !== 0) throw new Error(`building powercut-fs failed:\n${built.stderr.toString()}`)
  renameSync(`${binary}.building`, binary)
  return binary
}

function mounted(mountpoint: string): boolean {
  return readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .some((line) => line.split(' ')[1] === mountpoint)
}

export interface PowercutMount {
  /** The power goes: each page not flushed is written or lost, at random from `seed`. Then mount again. */
  cut(seed: number): void
  /** Everything written so far is flushed, as sync(1) does. */
  sync(): void
  /** Pages written and not flushed, held now. */
  dirtyPages(): number
  unmount(): Promise<void>
}

/** Mounts powercut-fs at `mountpoint` over the files in `backing` (both folders, made when missing). */
export async function mountPowercut(backing: string, mountpoint: string): Promise<PowercutMount> {
  mkdirSync(backing, { recursive: true })
  mkdirSync(mountpoint, { recursive: true })
  const daemon = Bun.spawn([powercutFs(), backing, mountpoint, '-f', '-s'], { stdout: 'ignore', stderr: 'pipe' })
  const deadline = performance.now() + MOUNT_TIMEOUT_MS
  while (!mounted(mountpoint)) {
    if (daemon.exitCode !== null || performance.now() > deadline) {
      daemon.kill()
      throw new Error(`powercut-fs did not mount at ${mountpoint}: ${await new Response(daemon.stderr).text()}`)
    }
    await Bun.sleep(10)
  }
  const control = join(mountpoint, '.powercut')
  return {
    cut: (seed) => writeFileSync(control, `cut ${seed}`),
    sync: () => writeFileSync(control, 'sync'),
    dirtyPages: () => Number(/^dirty (\d+)$/m.exec(readFileSync(control, 'utf8'))?.[1]),
    async unmount() {
      // A process killed a moment ago may still be leaving the file system (its last request being answered).
      for (let tries = 0; ; tries++) {
        const run = Bun.spawnSync(['fusermount3', '-u', mountpoint], { stderr: 'pipe' })
        if (run.exitCode === 0) break
        if (tries >= 50) throw new Error(`fusermount3 -u ${mountpoint}: ${run.stderr.toString()}`)
        await Bun.sleep(40)
      }
      await daemon.exited
    },
  }
}

/**
 * A command's prefix that runs it as after a reboot: in a mount namespace of its own where the kernel's boot ID
 * (/proc/sys/kernel/random/boot_id) reads as `bootId`. Root only.
 */
export function inBoot(bootId: string, folder: string): string[] {
  const file = join(folder, `boot-id-${bootId}`)
  writeFileSync(file, `${bootId}\n`)
  return [
    ...['unshare', '--mount', '--propagation', 'private', 'sh', '-c'],
    `mount --bind ${file} /proc/sys/kernel/random/boot_id && exec "$@"`,
    'sh',
  ]
}
