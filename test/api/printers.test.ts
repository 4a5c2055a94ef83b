// GET /v1/projects/:projectId/printers and …/printers/:printerId (scope printers:read): the
// project's printers with their state now, as a printer on the network reports it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { PrinterEmulator } from '../../src/emulator/emulator.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import type { ProjectPrinter } from '../../src/protocol/project-printer.ts'
import { projectPrintersResponseRule } from '../../src/protocol/project-printer.ts'
import { validate } from '../../src/protocol/rules.ts'
import { addBuiltinPrinter, jobBody, startTestHub, type TestHub } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

let t: TestHub
let emulator: PrinterEmulator
let other: { projectId: string; apiKey: string }
beforeAll(async () => {
  t = await startTestHub({ env: { PRINTHUB_STATUS_POLL_MS: '200' } })
  emulator = PrinterEmulator.listen({
    profile: findProfile('epson-tm-t20iii')!,
    width: 80,
    hostname: '127.0.0.1',
    port: 0,
  })
  const project = t.hub.store.projects.create('other')
  other = {
    projectId: project.id,
    apiKey: t.hub.store.apiKeys.create(project.id, ['jobs:read', 'printers:read'], null).secret,
  }
})
afterAll(async () => {
  await t.stop()
  emulator.stop()
})

const builtinAgent = () => t.hub.store.agents.builtin()!.id

async function printers(key?: string): Promise<ProjectPrinter[]> {
  const response = await t.request('GET', `/v1/projects/${t.projectId}/printers`, { key })
  expect(response.status).toBe(200)
  const body = await response.json()
  expect(validate(projectPrintersResponseRule, body).ok).toBe(true)
  return body.printers
}

const printer = async (name: string) => (await printers()).find((p) => p.name === name)!

describe("the project's printers", () => {
  test(
    'the demo printer with every field: its record ID (what jobs carry), its ' +
      'name, model, state, times, queue and agent',
    async () => {
      const [demo] = await printers()
      expect(Object.keys(demo!)).toEqual([
        'id',
        'name',
        'model',
        'state',
        'stateSince',
        'lastSeenAt',
        'queueDepth',
        'agentId',
      ])
      expect(demo).toMatchObject({
        id: t.hub.store.printers.resolve(t.projectId, 'demo')!.id,
        name: 'demo',
        queueDepth: 0,
        agentId: builtinAgent(),
      })
      expect(demo!.id).toMatch(/^prn_/)
      expect(Date.now() - Date.parse(demo!.lastSeenAt!)).toBeLessThan(5_000)
      // A job to it carries the same printer ID.
      const job = (await (await t.request('POST', `/v1/projects/${t.projectId}/jobs`, { body: jobBody() })).json()).job
      expect(job.printerId).toBe(demo!.id)
    },
  )

  test(
    'a network printer: ready, then paper near its end, out of paper, cover ' + 'open, each since it changed',
    async () => {
      await addBuiltinPrinter(t, 'counter', `tcp://127.0.0.1:${emulator.port}`, 'epson-tm-t20iii')
      const ready = await waitFor(
        async () => ((await printer('counter')).state === 'ready' ? printer('counter') : undefined),
        5_000,
      )
      expect(ready.stateSince).not.toBeNull()
      for (const [change, state] of [
        [{ paper: 'near-end' }, 'paper_near_end'],
        [{ paper: 'out' }, 'paper_out'],
        [{ paper: 'ok', coverOpen: true }, 'cover_open'],
        [{ coverOpen: false }, 'ready'],
      ] as const) {
        const before = Date.now()
        emulator.set(change)
        const now = await waitFor(
          async () => ((await printer('counter')).state === state ? printer('counter') : undefined),
          5_000,
        )
        expect([state, Date.parse(now.stateSince!) >= before - 5]).toEqual([state, true])
      }
    },
  )

  test('an offline printer, with the jobs waiting for it counted', async () => {
    await addBuiltinPrinter(t, 'terrace', 'virtual://terrace?mode=offline')
    for (let i = 0; i < 3; i++)
      expect(
        (await t.request('POST', `/v1/projects/${t.projectId}/jobs`, { body: jobBody({ printerId: 'terrace' }) }))
          .status,
      ).toBe(202)
    const terrace = await waitFor(
      async () => ((await printer('terrace')).state === 'offline' ? printer('terrace') : undefined),
      5_000,
    )
    expect(terrace.queueDepth).toBe(3)
  })

  test('busy while its agent holds a job', async () => {
    await addBuiltinPrinter(t, 'slow', 'virtual://slow?delay=1500')
    expect(
      (await t.request('POST', `/v1/projects/${t.projectId}/jobs`, { body: jobBody({ printerId: 'slow' }) })).status,
    ).toBe(202)
    await waitFor(async () => (await printer('slow')).state === 'busy', 3_000)
    await waitFor(async () => (await printer('slow')).state === 'ready', 5_000)
  })

  test('one printer, by its record ID or its name; an unknown one or another project`s is 404', async () => {
    const demo = (await printers()).find((p) => p.name === 'demo')!
    for (const id of [demo.id, 'demo']) {
      const response = await t.request('GET', `/v1/projects/${t.projectId}/printers/${id}`)
      expect(response.status).toBe(200)
      expect((await response.json()).printer).toEqual({ ...demo, lastSeenAt: expect.any(String) })
    }
    for (const response of [
      await t.request('GET', `/v1/projects/${t.projectId}/printers/nothing`),
      await t.request('GET', `/v1/projects/${other.projectId}/printers/${demo.id}`, { key: other.apiKey }),
    ]) {
      expect(response.status).toBe(404)
      expect((await response.json()).error.code).toBe('not_found')
    }
    expect(
      await (await t.request('GET', `/v1/projects/${other.projectId}/printers`, { key: other.apiKey })).json(),
    ).toEqual({ printers: [] })
  })

  test('the key needs printers:read and this project; a query parameter is refused', async () => {
    const jobsOnly = t.hub.store.apiKeys.create(t.projectId, ['jobs:read', 'jobs:write'], null).secret
    expect((await t.request('GET', `/v1/projects/${t.projectId}/printers`, { key: jobsOnly })).status).toBe(403)
    expect((await t.request('GET', `/v1/projects/${t.projectId}/printers/demo`, { key: jobsOnly })).status).toBe(403)
    expect((await t.request('GET', `/v1/projects/${t.projectId}/printers`, { key: other.apiKey })).status).toBe(401)
    expect(
      (await t.request('GET', `/v1/projects/${t.projectId}/printers`, { key: null as unknown as string })).status,
    ).toBe(401)
    const refused = await t.request('GET', `/v1/projects/${t.projectId}/printers?state=ready`)
    expect(refused.status).toBe(400)
    expect((await refused.json()).error.details).toEqual([
      { path: 'query.state', message: 'is not an allowed query parameter' },
    ])
  })
})
