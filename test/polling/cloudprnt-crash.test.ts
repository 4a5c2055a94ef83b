// A hub killed (-9) with a job for a CloudPRNT printer. Offered but not yet fetched: nothing left
// the hub, so after the restart the job is offered again and printed once, not failed as
// uncertain. Fetched but not confirmed: the printer may be printing it, so after the restart the
// job is uncertain (a person decides), and never offered again by itself.
import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { initialize } from '../../src/services/init.ts'
import { THE_MACHINE } from '../../src/services/actor.ts'
import { HubServices } from '../../src/services/hub-services.ts'
import { Store } from '../../src/store/store.ts'
import { confinementOf } from '../../src/transports/confine.ts'
import { CloudPrntPrinter } from '../support/cloudprnt-printer.ts'
import { tempDir } from '../support/hub.ts'
import { type ServeProcess, spawnServe } from '../support/serve.ts'
import { waitFor } from '../support/wait.ts'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const ENV = { PRINTHUB_RETRY_INITIAL_MS: '100', PRINTHUB_RETRY_MAX_MS: '300', PRINTHUB_STATUS_POLL_MS: '200' }

async function hubWithPrinter(mac: string): Promise<{ dir: string; projectId: string; apiKey: string }> {
  const dir = tempDir()
  dirs.push(dir)
  const store = Store.open({ dataDir: dir, create: true, maxOpenJobsPerProject: 10_000 })
  const init = await initialize(store, dir)
  if (!init.created) throw new Error('expected a first start')
  const adopted = await new HubServices(store).printers.adopt(
    THE_MACHINE,
    init.projectId,
    { printer: mac, id: 'bar' },
    confinementOf(dir),
  )
  if (adopted.kind !== 'added') throw new Error(adopted.kind)
  store.close()
  return { dir, projectId: init.projectId, apiKey: init.apiKey }
}

async function post(hub: ServeProcess, project: { projectId: string; apiKey: string }): Promise<string> {
  const answer = await fetch(`${hub.url}/v1/projects/${project.projectId}/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      printerId: 'bar',
      idempotencyKey: `crash-${crypto.randomUUID()}`,
      document: { width: 80, sections: [{ type: 'text', value: 'Table 9' }, { type: 'cut' }] },
    }),
  })
  expect(answer.status).toBe(202)
  return ((await answer.json()) as { job: { id: string } }).job.id
}

async function jobOf(
  hub: ServeProcess,
  project: { projectId: string; apiKey: string },
  id: string,
): Promise<{ state: string; lastErrorCode: string | null }> {
  const answer = await fetch(`${hub.url}/v1/projects/${project.projectId}/jobs/${id}`, {
    headers: { authorization: `Bearer ${project.apiKey}` },
  })
  return ((await answer.json()) as { job: { state: string; lastErrorCode: string | null } }).job
}

/** The job once it is COMPLETED or FAILED. */
function settledOf(
  hub: ServeProcess,
  project: { projectId: string; apiKey: string },
  id: string,
): Promise<{ state: string; lastErrorCode: string | null }> {
  return waitFor(async () => {
    const job = await jobOf(hub, project, id)
    return job.state === 'COMPLETED' || job.state === 'FAILED' ? job : undefined
  }, 15_000)
}

async function kill(hub: ServeProcess): Promise<void> {
  hub.process.kill('SIGKILL')
  await hub.process.exited
}

test('killed while a job waits to be fetched: after the restart it is fetched once and printed', async () => {
  const mac = '00:11:62:c0:00:01'
  const project = await hubWithPrinter(mac)
  let hub = await spawnServe(project.dir, { env: ENV })
  let printer = new CloudPrntPrinter({ url: `${hub.url}/cloudprnt`, mac })
  // It has polled (and said who it is), then polls no more for now.
  await printer.poll()
  const id = await post(hub, project)
  await waitFor(async () => (await jobOf(hub, project, id)).state === 'DELIVERED', 5_000)
  await kill(hub)
  expect(printer.fetched).toEqual([])
  hub = await spawnServe(project.dir, { env: ENV })
  try {
    printer = new CloudPrntPrinter({ url: `${hub.url}/cloudprnt`, mac })
    printer.start(100)
    const done = await settledOf(hub, project, id)
    expect(done.state).toBe('COMPLETED')
    expect(printer.fetched).toHaveLength(1)
    expect(printer.fetched[0]!.text.map((line) => line.trim())).toContain('Table 9')
  } finally {
    printer.stop()
    await hub.stop()
  }
}, 60_000)

test('killed after the printer fetched a job and before it confirmed it: ' +
  'uncertain after the restart, never offered again', async () => {
  const mac = '00:11:62:c0:00:02'
  const project = await hubWithPrinter(mac)
  let hub = await spawnServe(project.dir, { env: ENV })
  let printer = new CloudPrntPrinter({ url: `${hub.url}/cloudprnt`, mac })
  printer.confirms = false
  await printer.poll()
  const id = await post(hub, project)
  await waitFor(async () => (await printer.poll(), printer.fetched.length === 1), 5_000)
  await kill(hub)
  hub = await spawnServe(project.dir, { env: ENV })
  try {
    printer = new CloudPrntPrinter({ url: `${hub.url}/cloudprnt`, mac })
    printer.start(100)
    const done = await settledOf(hub, project, id)
    expect(done).toEqual(expect.objectContaining({ state: 'FAILED', lastErrorCode: 'job.recovery_uncertain' }))
    await waitFor(() => printer.answers.length > 10, 5_000)
    expect(printer.fetched).toEqual([])
    expect(printer.answers.every((answer) => answer.jobReady === false)).toBe(true)
  } finally {
    printer.stop()
    await hub.stop()
  }
}, 60_000)
