// A hub on a small board (a 512 MB Raspberry Pi): with 10 printers, 5 event streams open and a steady 2 jobs a second,
// its resident memory stays within 128 MB. It runs as `printhub serve` in a memory cgroup of the kernel's limited to
// 256 MB (what the installed unit's MemoryMax= gives it), so that a hub that grew past it would be reclaimed and
// killed there, and the test would see it. The printers are emulators on TCP that answer status and confirm each job.
import { afterAll, expect, test } from 'bun:test'
import { readFileSync, rmSync } from 'node:fs'
import { findProfile } from '../../src/profiles/catalog.ts'
import { PrinterEmulator } from '../../src/emulator/emulator.ts'
import { cli, cliJson } from '../support/cli.ts'
import { tempDir } from '../support/hub.ts'
import { type MemoryCgroup, memoryCgroup } from '../support/memory-cgroup.ts'
import { spawnServe } from '../support/serve.ts'
import { openSse, type SseStream } from '../support/sse.ts'
import { waitFor } from '../support/wait.ts'

const MB = 1024 * 1024
const PRINTERS = 10
const STREAMS = 5
const JOBS_PER_SECOND = 2
const SECONDS = 30
const RSS_LIMIT_MB = 128
const CGROUP_LIMIT = 256 * MB

const emulators: PrinterEmulator[] = []
const streams: SseStream[] = []
let cgroup: MemoryCgroup | undefined
const dir = tempDir()
afterAll(() => {
  for (const stream of streams) stream.close()
  for (const emulator of emulators) emulator.stop()
  cgroup?.remove()
  rmSync(dir, { recursive: true, force: true })
})

/** A process's resident memory now and at its most so far (VmRSS, VmHWM), in MB. */
function residentMb(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)![1])
  return { now: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 }
}

test(
  `10 printers, 5 event streams, ${JOBS_PER_SECOND} jobs/s for ${SECONDS} s: within ${RSS_LIMIT_MB} MB, ` +
    'in a cgroup of 256 MB, every job printed once',
  async () => {
    const { projectId, apiKey } = await cliJson<{ projectId: string; apiKey: string }>([
      'init',
      '--data',
      dir,
      '--json',
    ])
    const profile = findProfile('epson-tm-t20iii')!
    for (let i = 0; i < PRINTERS; i++) {
      const emulator = PrinterEmulator.listen({ hostname: '127.0.0.1', port: 0, profile, width: 80 })
      emulators.push(emulator)
      const added = await cli([
        ...['printers', 'add', '--project', projectId, '--id', `p${i}`],
        ...['--connection', `tcp://127.0.0.1:${emulator.port}`, '--profile', profile.id, '--data', dir],
      ])
      expect(added.code).toBe(0)
    }
    cgroup = memoryCgroup(CGROUP_LIMIT)
    const hub = await spawnServe(dir, { wrap: cgroup.wrap })
    try {
      const auth = { authorization: `Bearer ${apiKey}` }
      for (let i = 0; i < STREAMS; i++) streams.push(await openSse(`${hub.url}/v1/projects/${projectId}/events`, auth))
      const pid = hub.process.pid
      let highest = 0
      const total = JOBS_PER_SECOND * SECONDS
      const started = performance.now()
      for (let i = 0; i < total; i++) {
        // On a steady clock: the i-th job at its time, however long the last took.
        await Bun.sleep(Math.max(0, started + (i * 1000) / JOBS_PER_SECOND - performance.now()))
        const response = await fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({
            printerId: `p${i % PRINTERS}`,
            idempotencyKey: `small-board-${i}`,
            document: { width: 80, sections: [{ type: 'text', value: `ticket ${i} `.repeat(20) }, { type: 'cut' }] },
          }),
        })
        expect(response.status).toBe(202)
        highest = Math.max(highest, residentMb(pid).now)
      }
      // Every ticket on paper, once.
      await waitFor(() => emulators.reduce((sum, e) => sum + e.receipts.length, 0) === total || undefined, 30_000)
      const printed = emulators.flatMap((e) => e.receipts.map((r) => r.preview.text.join(' ')))
      const tickets = printed.map((text) => /ticket (\d+)/.exec(text)?.[1])
      expect(new Set(tickets).size).toBe(total)
      const { peak } = residentMb(pid)
      console.log(
        `small board: RSS at most ${highest.toFixed(1)} MB while jobs came, peak ${peak.toFixed(1)} MB; ` +
          `the cgroup's peak ${(cgroup.peakBytes() / MB).toFixed(1)} MB of ${CGROUP_LIMIT / MB} MB`,
      )
      expect(peak).toBeLessThan(RSS_LIMIT_MB)
      expect(cgroup.timesAtLimit()).toBe(0)
      expect(hub.process.exitCode).toBeNull()
    } finally {
      expect(await hub.stop()).toBe(0)
    }
  },
  (SECONDS + 60) * 1000,
)
