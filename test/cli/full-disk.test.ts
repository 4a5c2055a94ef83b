// A full disk is an answer, never a 500, on a real small file system: the hub runs on its own tmpfs
// (mounted for it in a mount namespace of its own, so no root is needed), which the test fills
// through /proc/PID/root. Below the minimum free space, new jobs get 507 storage_full while reads
// and retries of accepted jobs go on and /health says why; a write SQLite itself finds no room for
// fails the same way with nothing half written; with room again, jobs are taken without a restart.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cli } from '../support/cli.ts'
import { jobBody, tempDir } from '../support/hub.ts'
import { type ServeProcess, spawnServe } from '../support/serve.ts'
import { waitFor } from '../support/wait.ts'
import { pngOfSize } from '../support/images.ts'

const DISK_MB = 48
const MIN_FREE_MB = 8
const MB = 1_048_576

let dir: string
/** The hubs the tests run, each on a tmpfs of its own. */
const hubs: ServeProcess[] = []

interface DiskHub {
  hub: ServeProcess
  /** The hub's data directory as this process sees it: through the hub's own mount namespace. */
  seen: string
}

/** A hub on a tmpfs of `DISK_MB`, mounted for it alone; it refuses jobs below `minFreeMb`. */
async function hubOnTmpfs(name: string, minFreeMb: number): Promise<DiskHub> {
  const dataDir = join(dir, name)
  mkdirSync(dataDir)
  const mount = [
    'unshare',
    '--mount',
    '--map-root-user',
    'sh',
    '-c',
    `mount -t tmpfs -o size=${DISK_MB}m tmpfs "$0" && exec "$@"`,
    dataDir,
  ]
  const hub = await spawnServe(dataDir, { json: true, wrap: mount, env: { PRINTHUB_MIN_FREE_MB: String(minFreeMb) } })
  hubs.push(hub)
  const seen = `/proc/${hub.process.pid}/root${dataDir}`
  const fs = statfsSync(seen)
  expect(fs.blocks * fs.bsize).toBe(DISK_MB * MB)
  return { hub, seen }
}

const freeBytes = (seen: string) => {
  const fs = statfsSync(seen)
  return fs.bavail * fs.bsize
}
/** Fills the hub's file system until `leftBytes` are free (files the test removes later). */
function fillUntil(seen: string, leftBytes: number): void {
  const missing = freeBytes(seen) - leftBytes
  if (missing > 0) writeFileSync(join(seen, `filler-${Date.now()}`), new Uint8Array(missing))
}
const emptyFillers = (seen: string) => () => {
  for (const name of new Bun.Glob('filler-*').scanSync(seen)) rmSync(join(seen, name))
}

async function post(
  hub: ServeProcess,
  idempotencyKey: string,
  sections: unknown[] = [{ type: 'text', value: 'Table 4' }],
) {
  const { projectId, apiKey } = hub.listening!.firstStart
  return fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(jobBody({ idempotencyKey, document: { width: 80, sections } })),
  })
}
async function jobs(hub: ServeProcess): Promise<{ idempotencyKey: string }[]> {
  const { projectId, apiKey } = hub.listening!.firstStart
  const response = await fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
    headers: { authorization: `Bearer ${apiKey}` },
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { jobs: { idempotencyKey: string }[] }).jobs
}
const health = async (hub: ServeProcess) => {
  const response = await fetch(`${hub.url}/health`)
  return { status: response.status, body: (await response.json()) as { ok: boolean; service: string; reason?: string } }
}

beforeAll(() => {
  dir = tempDir()
})
afterAll(async () => {
  for (const hub of hubs) await hub.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** Room again after a test, whatever happened in it. */
let afterThisTest = () => {}
afterEach(() => {
  afterThisTest()
  afterThisTest = () => {}
})

describe('a full disk', () => {
  test(
    'below the minimum: 507 storage_full for new jobs, reads and retries go ' +
      'on, /health says why; room again: taken without a restart',
    async () => {
      const { hub, seen } = await hubOnTmpfs('guarded', MIN_FREE_MB)
      afterThisTest = emptyFillers(seen)
      expect((await post(hub, 'before')).status).toBe(202)
      fillUntil(seen, (MIN_FREE_MB / 2) * MB)
      const unhealthy = await waitFor(async () => {
        const answer = await health(hub)
        return answer.status === 503 && answer
      }, 6_000)
      expect(unhealthy.body).toEqual({
        ok: false,
        service: 'printhub',
        reason: expect.stringMatching(/disk has \d+ MB free, under its minimum of 8 MB/),
      })

      const refused = await post(hub, 'while-full')
      expect(refused.status).toBe(507)
      expect(refused.headers.get('retry-after')).toBe('60')
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('storage_full')
      // Reads go on, and a retry of the accepted job is answered as it is.
      expect((await post(hub, 'before')).status).toBe(200)
      expect((await jobs(hub)).map((j) => j.idempotencyKey)).toEqual(['before'])

      const doctor = await cli(['doctor', '--data', seen, '--json'])
      const finding = (
        JSON.parse(doctor.stdout) as { findings: { check: string; verdict: string; detail: string }[] }
      ).findings.find((f) => f.check === 'data directory')!
      expect(finding.verdict).toBe('fail')
      expect(finding.detail).toContain(seen)
      expect(finding.detail).toMatch(/in it: filler-\d+ \d+ MB/)

      emptyFillers(seen)()
      await waitFor(async () => (await health(hub)).status === 200, 6_000)
      expect((await post(hub, 'while-full')).status).toBe(202)
    },
  )

  test('a write SQLite finds no room for: 507 storage_full, nothing of it stays, and the hub goes on', async () => {
    // A minimum below what a large job and its journal need: the disk fills under SQLite itself. Less room than
    // the job's record needs in the redo log too (which grows by 1 MB of zeros at a time): with room for that, the
    // job is on disk there, answered 202, and committed to the database once there is room.
    const { hub, seen } = await hubOnTmpfs('unguarded', 1)
    afterThisTest = emptyFillers(seen)
    expect((await post(hub, 'small')).status).toBe(202)
    fillUntil(seen, 0.5 * MB)
    // About 1.9 MB of images (a document's text is bounded far below that).
    const big = [pngOfSize(1_000_000), pngOfSize(400_000)].map((data) => ({
      type: 'image',
      mediaType: 'image/png',
      data,
    }))
    const refused = await post(hub, 'too-big-for-the-disk', big)
    expect(refused.status).toBe(507)
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('storage_full')
    expect((await jobs(hub)).map((j) => j.idempotencyKey)).toEqual(['small'])
    emptyFillers(seen)()
    expect((await post(hub, 'too-big-for-the-disk', big)).status).toBe(202)
    expect((await jobs(hub)).map((j) => j.idempotencyKey)).toEqual(['too-big-for-the-disk', 'small'])
  })
})
