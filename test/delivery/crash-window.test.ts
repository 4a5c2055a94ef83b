// The window a crash leaves uncertain is as narrow as the agent can make it: the printer is
// reached and asked its status before the intent to print is recorded, so a hub killed (-9) while
// a printer is being reached leaves a job that was never written to it, which is printed once
// after the restart instead of failing as "may have printed".
import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { RequestScanner } from '../../src/emulator/request-scanner.ts'
import { initialize } from '../../src/services/init.ts'
import { Store } from '../../src/store/store.ts'
import { jobBody, tempDir } from '../support/hub.ts'
import { spawnServe } from '../support/serve.ts'
import { waitFor } from '../support/wait.ts'

/** A printer that answers status requests only once told to (until then it holds the first job's connection). */
function hesitantPrinter() {
  const state = { answering: false, statusAsked: 0, jobs: [] as number[][] }
  const listener = Bun.listen<{ scanner: RequestScanner; bytes: number[] }>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open: (socket) => {
        socket.data = { scanner: new RequestScanner(), bytes: [] }
      },
      data: (socket, chunk) => {
        const { requests, data } = socket.data.scanner.scan(chunk)
        socket.data.bytes.push(...data)
        for (const request of requests) {
          if (request.kind === 'status') {
            state.statusAsked++
            if (state.answering) socket.write(Uint8Array.of(0x12))
          } else if (state.answering) socket.write(Uint8Array.of(0x37, 0x22, ...request.id, 0x00))
        }
      },
      close: (socket) => {
        if (socket.data.bytes.length > 0) state.jobs.push(socket.data.bytes)
      },
    },
  })
  return { url: `tcp://127.0.0.1:${listener.port}`, state, stop: () => listener.stop(true) }
}

const printer = hesitantPrinter()
const dir = tempDir()
afterAll(() => {
  printer.stop()
  rmSync(dir, { recursive: true, force: true })
})

test('killed while the printer is asked its status, before a byte of the job: printed once after the restart, not uncertain', async () => {
  const store = Store.open({ dataDir: dir, create: true, maxOpenJobsPerProject: 10_000 })
  const init = await initialize(store, dir)
  if (!init.created) throw new Error('expected a first start')
  store.printers.add({ projectId: init.projectId, remoteId: 'kitchen', name: null, connection: printer.url, profile: 'epson-tm-m30iii', width: 80, agentId: store.agents.builtin()!.id })
  store.close()
  let hub = await spawnServe(dir)
  const jobs = `/v1/projects/${init.projectId}/jobs`
  const headers = { authorization: `Bearer ${init.apiKey}`, 'content-type': 'application/json' }
  const posted = await fetch(hub.url + jobs, { method: 'POST', headers, body: JSON.stringify(jobBody({ printerId: 'kitchen' })) })
  expect(posted.status).toBe(202)
  const { job } = (await posted.json()) as { job: { id: string } }
  // The printer is asked its status (and does not answer yet: a printer waking up, a slow link).
  // The job's own first byte would follow the answer, or the status timeout (500 ms).
  await waitFor(() => printer.state.statusAsked > 0 || undefined, 10_000)
  hub.process.kill('SIGKILL')
  await hub.process.exited
  expect(printer.state.jobs).toEqual([])

  printer.state.answering = true
  hub = await spawnServe(dir)
  try {
    const done = await waitFor(async () => {
      const listed = (await (await fetch(hub.url + jobs, { headers })).json()) as { jobs: { id: string; state: string; lastErrorCode: string | null; attemptCount: number }[] }
      const found = listed.jobs.find((j) => j.id === job.id)!
      return found.state === 'COMPLETED' || found.state === 'FAILED' ? found : undefined
    }, 15_000)
    expect(done).toMatchObject({ state: 'COMPLETED', lastErrorCode: null })
    expect(printer.state.jobs).toHaveLength(1)
  } finally {
    await hub.stop()
  }
}, 60_000)
