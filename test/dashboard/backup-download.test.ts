// The dashboard's backup download: admin only, one at a time, named as the hub names its backups,
// with its exact length, gone from the hub's disk once it is being sent, and what is downloaded restores.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readlinkSync, statSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { DOWNLOADS_DIR } from '../../src/workers/backup-schedule.ts'
import { cli } from '../support/cli.ts'
import { startTestHub, tempDir, type TestHub } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

const PASSWORD = 'a long admin password'
let hub: TestHub
let cookie: string
let dir: string
const lines: string[] = []

beforeAll(async () => {
  dir = tempDir()
  hub = await startTestHub({ events: (line) => lines.push(line) })
  const response = await hub.request('POST', '/admin/v1/setup', {
    key: null,
    body: { token: hub.hub.setupToken, password: PASSWORD },
  })
  expect(response.status).toBe(200)
  cookie = response.headers.get('set-cookie')!.split(';')[0]!
})
afterAll(() => hub.stop())

const download = (headers: Record<string, string>) => hub.request('GET', '/admin/v1/backup', { key: null, headers })

describe('GET /admin/v1/backup', () => {
  test('needs an admin: nobody, a wrong session and a project API key are refused, and no backup is made', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { cookie: 'printhub_session=not-a-session' },
      { authorization: `Bearer ${hub.apiKey}` },
    ]
    for (const headers of attempts) {
      const response = await download(headers)
      expect(response.status).toBe(401)
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized')
    }
    expect(existsSync(join(hub.dataDir, DOWNLOADS_DIR))).toBe(false)
  })

  test('a signed-in admin downloads a fresh backup named for the hub, removed ' +
    "from the hub's disk once sent; it restores", async () => {
    const job = await hub.request('POST', `/v1/projects/${hub.projectId}/jobs`, {
      body: {
        printerId: 'demo',
        idempotencyKey: 'before-download',
        document: { width: 80, sections: [{ type: 'text', value: 'x' }] },
      },
    })
    expect(job.status).toBe(202)
    const jobId = ((await job.json()) as { job: { id: string } }).job.id
    const response = await download({ cookie })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/octet-stream')
    expect(response.headers.get('cache-control')).toBe('no-store')
    const name = /^attachment; filename="(printhub-backup-printhub-\d{8}-\d{4}\.phbackup)"$/.exec(
      response.headers.get('content-disposition') ?? '',
    )?.[1]
    expect(name).toBeDefined()
    const bytes = new Uint8Array(await response.arrayBuffer())
    expect(bytes.length).toBeGreaterThan(0)
    expect(readdirSync(join(hub.dataDir, DOWNLOADS_DIR))).toEqual([])
    // Said in the hub's log, as one line.
    expect(
      lines.filter(
        (line) =>
          line.includes(` info  backup file=${join(hub.dataDir, DOWNLOADS_DIR, name!)} `) &&
          line.includes(' made a backup to download ('),
      ),
    ).toHaveLength(1)

    const file = join(dir, name!)
    writeFileSync(file, bytes, { mode: 0o600 })
    const restored = join(dir, 'restored')
    const result = await cli(['restore', file, '--data', restored, '--json'])
    expect(result.stderr).toBe('')
    expect(JSON.parse(result.stdout)).toMatchObject({ serverId: hub.hub.serverId, counts: { jobs: 1 } })
    const shown = await cli(['jobs', 'show', jobId, '--data', restored, '--json'])
    expect(shown.code).toBe(0)
    expect(JSON.parse(shown.stdout).id).toBe(jobId)
    expect(statSync(join(restored, 'agent', 'agent.key')).mode & 0o777).toBe(0o600)
  }, 30_000)

  test('the answer says its exact length (Content-Length, not chunked); the file ' +
    'is gone from the disk while it is sent, and only the hub holds it ' +
    'open after', async () => {
    // The hub runs in this process: its open files are this process's (earlier downloads' handles may still be held).
    const backupHandles = () =>
      readdirSync('/proc/self/fd').flatMap((fd) => {
        try {
          const target = readlinkSync(`/proc/self/fd/${fd}`)
          return target.includes(DOWNLOADS_DIR) ? [[fd, target] as const] : []
        } catch {
          return []
        }
      })
    const before = new Map(backupHandles())
    const socket = connect(hub.hub.port, '127.0.0.1')
    const chunks: Buffer[] = []
    let resume: (head: string) => void
    const headArrived = new Promise<string>((resolve) => (resume = resolve))
    const ended = new Promise<void>((resolve, reject) => {
      socket.on('close', () => resolve())
      socket.on('error', reject)
    })
    socket.on('data', (data: Buffer) => {
      chunks.push(data)
      const received = Buffer.concat(chunks)
      const headEnd = received.indexOf('\r\n\r\n')
      if (headEnd < 0 || socket.isPaused()) return
      // Held while the test looks at the hub's disk: the rest of the file waits in the hub.
      socket.pause()
      resume(received.subarray(0, headEnd).toString('latin1'))
    })
    socket.write(`GET /admin/v1/backup HTTP/1.1\r\nhost: 127.0.0.1\r\ncookie: ${cookie}\r\nconnection: close\r\n\r\n`)
    const head = await headArrived
    expect(head).toStartWith('HTTP/1.1 200 ')
    expect(head).not.toMatch(/^transfer-encoding:/im)
    const lengths = [...head.matchAll(/^content-length: *(\d+)$/gim)].map((match) => Number(match[1]))
    expect(lengths).toHaveLength(1)
    expect(lengths[0]).toBeGreaterThan(0)
    const name = /filename="([^"]+)"/.exec(head)![1]!
    expect(readdirSync(join(hub.dataDir, DOWNLOADS_DIR))).toEqual([])
    socket.resume()
    await ended
    const received = Buffer.concat(chunks)
    expect(received.length - (received.indexOf('\r\n\r\n') + 4)).toBe(lengths[0]!)
    // Sent: Bun has closed its own handle on the removed file; the hub's is closed after DOWNLOAD_HANDLE_MS.
    const ours = await waitFor(() => {
      const now = backupHandles().filter(([fd, target]) => before.get(fd) !== target)
      return now.length === 1 ? now : undefined
    })
    expect(ours[0]![1]).toEndWith(`/${name} (deleted)`)
  }, 30_000)

  test('one at a time: asked for twice at once, the second is told to try again shortly', async () => {
    const [first, second] = await Promise.all([download({ cookie }), download({ cookie })])
    expect(first.status).toBe(200)
    expect(second.status).toBe(429)
    expect(second.headers.get('retry-after')).toBe('10')
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('rate_limited')
    expect((await first.arrayBuffer()).byteLength).toBeGreaterThan(0)
    // Free again once the first is made.
    const third = await download({ cookie })
    expect(third.status).toBe(200)
    await third.arrayBuffer()
  }, 30_000)
})
