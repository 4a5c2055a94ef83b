// A network printer that says when it printed: the job is PRINTING from the moment the printer
// took every byte until its process ID response, and only then COMPLETED. The printer here answers
// status requests at once and its process ID request only when the test says.
import { afterAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { RequestScanner } from '../../src/emulator/request-scanner.ts'
import type { Job } from '../../src/protocol/job.ts'
import { jobBody, startTestHub, type TestHub, tempDir } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

/** A printer whose confirmations wait: `confirm()` sends the process ID responses asked so far. */
function slowConfirmingPrinter() {
  const jobs: number[][] = []
  const waiting: { socket: { write(bytes: Uint8Array): number }; id: Uint8Array }[] = []
  const sockets = new Set<{ end(): void }>()
  const listener = Bun.listen<{ scanner: RequestScanner; bytes: number[] }>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open: (socket) => {
        socket.data = { scanner: new RequestScanner(), bytes: [] }
        sockets.add(socket)
      },
      data: (socket, chunk) => {
        const { requests, data } = socket.data.scanner.scan(chunk)
        socket.data.bytes.push(...data)
        for (const request of requests) {
          if (request.kind === 'status') socket.write(Uint8Array.of(0x12))
          else waiting.push({ socket, id: request.id })
        }
      },
      close: (socket) => {
        sockets.delete(socket)
        if (socket.data.bytes.length > 0) jobs.push(socket.data.bytes)
      },
    },
  })
  return {
    url: `tcp://127.0.0.1:${listener.port}`,
    jobs,
    waiting,
    confirm: () => {
      for (const { socket, id } of waiting.splice(0)) socket.write(Uint8Array.of(0x37, 0x22, ...id, 0x00))
    },
    /** Drops every connection, as a printer switched off does. */
    drop: () => {
      for (const socket of sockets) socket.end()
    },
    stop: () => listener.stop(true),
  }
}

const printer = slowConfirmingPrinter()
afterAll(() => printer.stop())

async function hubWithPrinter(dataDir?: string): Promise<TestHub> {
  const t = await startTestHub({ dataDir, env: { PRINTHUB_RETRY_INITIAL_MS: '100', PRINTHUB_RETRY_MAX_MS: '200' } })
  if (!t.hub.store.printers.list(t.projectId).some((p) => p.remoteId === 'pass')) {
    const agentId = t.hub.store.agents.builtin()!.id
    const record = t.hub.store.printers.add({
      projectId: t.projectId,
      remoteId: 'pass',
      name: null,
      connection: printer.url,
      profile: 'epson-tm-m30iii',
      width: 80,
      agentId,
    })!
    await waitFor(() => t.hub.sessions.session(agentId)?.printers.has(record.id), 5_000)
  }
  return t
}

async function submit(t: TestHub): Promise<Job> {
  const response = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, { body: jobBody({ printerId: 'pass' }) })
  expect(response.status).toBe(202)
  return (await response.json()).job
}

const until = (t: TestHub, id: string, check: (job: Job) => boolean) =>
  waitFor(() => (check(t.hub.store.jobs.get(id)!) ? t.hub.store.jobs.get(id)! : undefined), 5_000)

describe('completion confirmed by the printer', () => {
  test('PRINTING while the printer prints, COMPLETED when it says so', async () => {
    const t = await hubWithPrinter()
    try {
      const job = await submit(t)
      const printing = await until(t, job.id, (j) => j.state === 'PRINTING')
      expect(printing.submittedAt).not.toBeNull()
      // PRINTING once every byte was handed to the connection: the printer reads them a moment later.
      await waitFor(() => printer.waiting.length === 1, 5_000)
      printer.confirm()
      const done = await until(t, job.id, (j) => j.state === 'COMPLETED')
      expect(done.attemptCount).toBe(1)
    } finally {
      await t.stop()
    }
  })

  test('the connection lost before the printer confirmed: FAILED, never sent again (it may have printed)', async () => {
    const t = await hubWithPrinter()
    try {
      const before = printer.jobs.length
      const job = await submit(t)
      await until(t, job.id, (j) => j.state === 'PRINTING')
      await waitFor(() => printer.waiting.length === 1, 5_000)
      printer.waiting.splice(0)
      printer.drop()
      const failed = await until(t, job.id, (j) => j.state === 'FAILED')
      // Not retryable: the remaining attempts are forfeited, and the printer got the job once.
      expect(failed).toMatchObject({ attemptCount: 5, maxAttempts: 5, lastErrorCode: 'printer.unconfirmed' })
      expect(printer.jobs.length).toBe(before + 1)
    } finally {
      await t.stop()
    }
  })

  test(
    'the hub stopped while the job was PRINTING: after the restart it is ' + 'FAILED as uncertain, not printed again',
    async () => {
      const dataDir = tempDir()
      try {
        const first = await hubWithPrinter(dataDir)
        const job = await submit(first)
        await until(first, job.id, (j) => j.state === 'PRINTING')
        await waitFor(() => printer.waiting.length === 1, 5_000)
        const printedBefore = printer.jobs.length
        await first.hub.stop()
        printer.waiting.splice(0)
        const again = await hubWithPrinter(dataDir)
        try {
          const failed = await until(again, job.id, (j) => j.state === 'FAILED')
          expect(failed).toMatchObject({ attemptCount: 5, maxAttempts: 5, lastErrorCode: 'job.recovery_uncertain' })
          expect(failed.lastErrorMessage).toContain('before the printer confirmed')
          // Nothing was sent to the printer again.
          expect(printer.waiting).toHaveLength(0)
          expect(printer.jobs.length).toBeLessThanOrEqual(printedBefore + 1)
        } finally {
          await again.hub.stop()
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true })
      }
    },
  )
})
