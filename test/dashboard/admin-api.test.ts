// The admin API behind the dashboard's pages, against a real hub: printers (test page, edit,
// status history from the printer's own status, last receipt, remove), pairing codes printed on
// a printer, revoking an agent, the overview.
import { adminToken } from '../support/fixtures.ts'
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { PrinterEmulator } from '../../src/emulator/emulator.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import type { Job } from '../../src/protocol/job.ts'
import { FakeAgent, pairAgent, virtualPrinter } from '../support/fake-agent.ts'
import { startTestHub, type TestHub } from '../support/hub.ts'
import { openSse } from '../support/sse.ts'
import { waitFor } from '../support/wait.ts'
import { previewOf } from '../support/virtual.ts'

let hub: TestHub
let token: string

beforeEach(async () => {
  hub = await startTestHub({
    env: { PRINTHUB_STATUS_POLL_MS: '200', PRINTHUB_RETRY_INITIAL_MS: '100', PRINTHUB_RETRY_MAX_MS: '500' },
  })
  token = adminToken(hub.hub.store)
})
afterEach(async () => {
  await hub.stop()
})

async function admin<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await hub.request(method, `/admin/v1${path}`, { key: token, body })
  return {
    status: response.status,
    body: (response.headers.get('content-type')?.includes('json')
      ? await response.json()
      : await response.arrayBuffer()) as T,
  }
}

const jobState = async (id: string) => (await admin<{ job: Job }>('GET', `/jobs/${id}`)).body.job.state
const demoId = () => hub.hub.store.printers.resolve(hub.projectId, 'demo')!.id

describe('admin API', () => {
  test("an open dashboard's change stream stays quiet while nothing changes (its disk line too)", async () => {
    const stream = await openSse(`${hub.url}/admin/v1/events`, { authorization: `Bearer ${token}` })
    try {
      const first = await stream.next(5_000)
      expect(first.event).toBe('change')
      // Settled: the built-in agent's printers reported, the first change events sent.
      await waitFor(async () => {
        try {
          await stream.next(1_500)
          return undefined
        } catch {
          return true
        }
      }, 20_000)
      // Then nothing for several ticks of its look (twice a second), whatever the clock says of the disk.
      await expect(stream.next(2_500)).rejects.toThrow()
    } finally {
      stream.close()
    }
  })

  test('a test page goes through the queue, prints, and becomes the last receipt', async () => {
    expect((await admin('GET', `/printers/${demoId()}/last-receipt.png`)).status).toBe(404)
    const queued = await admin<{ job: Job }>('POST', `/printers/${demoId()}/test`)
    expect(queued.status).toBe(202)
    expect(queued.body.job.metadata).toEqual({ printhub: 'test-page' })
    await waitFor(async () => (await jobState(queued.body.job.id)) === 'COMPLETED')
    const printed = previewOf(hub.hub.virtualPrinters.printed('virtual').at(-1)!).text
    expect(printed[0]).toContain('printhub test page')
    expect(printed.join('\n')).toContain('Äöü ß é è ñ ç € £ ¿ ¡')
    const image = await admin<ArrayBuffer>('GET', `/printers/${demoId()}/last-receipt.png`)
    expect(image.status).toBe(200)
    expect([...new Uint8Array(image.body).slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47])
  })

  test("a network printer's own status: paper low, then out, in its state and history; back online", async () => {
    const emulator = PrinterEmulator.listen({
      hostname: '127.0.0.1',
      port: 0,
      profile: findProfile('epson-tm-t20iii')!,
      width: 80,
      state: { paper: 'near-end' },
    })
    try {
      const added = await admin('POST', '/printers', {
        projectId: hub.projectId,
        id: 'kitchen',
        connection: `tcp://127.0.0.1:${emulator.port}`,
        profile: 'epson-tm-t20iii',
      })
      expect(added.status).toBe(201)
      const id = added.body.printer.id as string
      const state = async () =>
        (await admin<{ printers: { id: string; state: string }[] }>('GET', '/printers')).body.printers.find(
          (p) => p.id === id,
        )!.state
      await waitFor(async () => (await state()) === 'paper_low', 10_000)
      emulator.set({ paper: 'out' })
      await waitFor(async () => (await state()) === 'paper_out', 10_000)
      emulator.set({ paper: 'ok' })
      await waitFor(async () => (await state()) === 'online', 10_000)
      const { states } = (await admin<{ states: { state: string }[] }>('GET', `/printers/${id}/history`)).body
      const seen = states.map((s) => s.state).reverse()
      expect(seen.slice(seen.indexOf('paper_low'))).toEqual(['paper_low', 'paper_out', 'online'])
      const overview = (await admin('GET', '/overview')).body
      expect(overview.printers.find((p: { id: string }) => p.id === id)).toMatchObject({
        remoteId: 'kitchen',
        state: 'online',
        queue: 0,
        builtin: true,
        agentOnline: true,
      })
    } finally {
      emulator.stop()
    }
  })

  test('edit a printer, then remove it: applications can no longer print on it', async () => {
    const edited = await admin('PATCH', `/printers/${demoId()}`, {
      name: 'Counter',
      profile: 'generic-58mm',
      width: 58,
    })
    expect(edited.status).toBe(200)
    expect(edited.body.printer).toMatchObject({
      name: 'Counter',
      width: 58,
      profile: 'generic-58mm',
      connection: 'virtual',
    })
    const badWidth = await admin('PATCH', `/printers/${demoId()}`, { width: 80 })
    expect(badWidth.status).toBe(400)
    expect(badWidth.body.error.message).toBe("The printer's width must be one of 58 for profile generic-58mm.")
    const id = demoId()
    expect((await admin('DELETE', `/printers/${id}`)).status).toBe(200)
    expect((await admin('DELETE', `/printers/${id}`)).status).toBe(404)
    const job = await hub.request('POST', `/v1/projects/${hub.projectId}/jobs`, {
      body: {
        printerId: 'demo',
        idempotencyKey: 'after-removal',
        document: { width: 80, sections: [{ type: 'cut' }] },
      },
    })
    expect(job.status).toBe(404)
  })

  test('a pairing code printed on a printer; the agent it pairs can be revoked, the built-in one cannot', async () => {
    const created = await admin('POST', '/pairing-codes', { ttlSeconds: 600, printOn: demoId() })
    expect(created.status).toBe(201)
    const { code, command, qrSvg, printed } = created.body
    expect(command).toBe(`printhub agent --server ${hub.url} --code ${code}`)
    expect(qrSvg).toStartWith('<svg')
    await waitFor(async () => (await jobState(printed.id)) === 'COMPLETED')
    expect(previewOf(hub.hub.virtualPrinters.printed('virtual').at(-1)!).text).toContain(
      `${' '.repeat(Math.floor((48 - code.length) / 2))}${code}`,
    )

    const credentials = await pairAgent(hub.url, code, 'bar-pi')
    const agent = await FakeAgent.online(hub.url, credentials, [virtualPrinter('till')])
    try {
      const online = await waitFor(async () =>
        (await admin('GET', '/agents')).body.agents.find(
          (a: { id: string; online: boolean; printers: unknown[] }) =>
            a.id === credentials.agentId && a.online && a.printers.length > 0,
        ),
      )
      expect(online.printers).toEqual([
        { id: 'till', name: expect.any(String), availability: 'online', enabled: true, kind: 'virtual' },
      ])
      // Its printer given to a project, from the printers page.
      const assigned = await admin('POST', '/printers', {
        projectId: hub.projectId,
        id: '',
        agentId: credentials.agentId,
        agentPrinterId: 'till',
      })
      expect(assigned.status).toBe(201)
      expect(assigned.body.printer).toMatchObject({
        remoteId: 'till',
        builtin: false,
        agentName: 'bar-pi',
        agentOnline: true,
        state: 'online',
      })
      const builtin = (await admin('GET', '/agents')).body.agents.find((a: { builtin: boolean }) => a.builtin)
      expect((await admin('POST', `/agents/${builtin.id}/revoke`)).status).toBe(409)
      const revoked = await admin('POST', `/agents/${credentials.agentId}/revoke`)
      expect(revoked.body.agent.revokedAt).toBeString()
      await agent.closed()
      const listed = (await admin('GET', '/agents')).body.agents.find(
        (a: { id: string }) => a.id === credentials.agentId,
      )
      expect(listed).toMatchObject({ online: false })
      // Its printer shows offline, and the change is in its history.
      const till = (await admin('GET', '/printers')).body.printers.find(
        (p: { remoteId: string }) => p.remoteId === 'till',
      )
      expect(till.state).toBe('offline')
      expect(
        (await admin('GET', `/printers/${till.id}/history`)).body.states.map((s: { state: string }) => s.state),
      ).toEqual(['offline', 'online'])
    } finally {
      await agent.close()
    }
  })

  test(
    'a reprint keeps the metadata as it was and links both ways; one whose ' +
      'banner would pass the section limit is refused, and nothing is made',
    async () => {
      const metadata = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`k${i}`, 'v']))
      const posted = await hub.request('POST', `/v1/projects/${hub.projectId}/jobs`, {
        body: {
          printerId: 'demo',
          idempotencyKey: 'full',
          metadata,
          document: { width: 80, sections: [{ type: 'cut' }] },
        },
      })
      const { job } = (await posted.json()) as { job: Job }
      const reprint = await admin<{ job: Job; reprintOf: string }>('POST', `/jobs/${job.id}/reprint`)
      expect(reprint.status).toBe(202)
      expect(reprint.body.reprintOf).toBe(job.id)
      expect(reprint.body.job.metadata).toEqual(metadata)
      expect((await admin('GET', `/jobs/${reprint.body.job.id}`)).body).toMatchObject({
        reprintOf: job.id,
        reprints: [],
      })
      expect((await admin('GET', `/jobs/${job.id}`)).body).toMatchObject({
        reprintOf: null,
        reprints: [reprint.body.job.id],
      })

      const full = Array.from({ length: 256 }, () => ({ type: 'divider' }))
      const long = await hub.request('POST', `/v1/projects/${hub.projectId}/jobs`, {
        body: { printerId: 'demo', idempotencyKey: 'long', document: { width: 80, sections: full } },
      })
      const before = (await admin('GET', '/jobs')).body.jobs.length
      const refused = await admin('POST', `/jobs/${((await long.json()) as { job: Job }).job.id}/reprint`)
      expect(refused.status).toBe(409)
      expect(refused.body.error.message).toContain('REPRINT banner')
      expect((await admin('GET', '/jobs')).body.jobs.length).toBe(before)
    },
  )

  test('the search: a metadata value as typed, with the other filters; a query too long is 400 naming it', async () => {
    for (const [key, table] of [
      ['a', '7'],
      ['b', '17'],
      ['c', '7'],
    ] as const) {
      expect(
        (
          await hub.request('POST', `/v1/projects/${hub.projectId}/jobs`, {
            body: {
              printerId: 'demo',
              idempotencyKey: key,
              metadata: { table, order: `10${key}` },
              document: { width: 80, sections: [{ type: 'cut' }] },
            },
          })
        ).status,
      ).toBe(202)
    }
    const tables = async (query: string) =>
      ((await admin<{ jobs: Job[] }>('GET', `/jobs?${query}`)).body.jobs ?? []).map((job) => job.idempotencyKey)
    expect(await tables('q=7')).toEqual(['c', 'a'])
    expect(await tables('q=1')).toEqual(['c', 'b', 'a'])
    expect(await tables('q=10b')).toEqual(['b'])
    expect(await tables(`q=7&project=${hub.projectId}&printer=${demoId()}`)).toEqual(['c', 'a'])
    expect(await tables('q=%20%207%20')).toEqual(['c', 'a'])
    const long = await admin('GET', `/jobs?q=${'x'.repeat(1_001)}`)
    expect(long.status).toBe(400)
    expect(long.body.error.details).toEqual([{ path: 'query.q', message: 'must be at most 1000 characters' }])
  })
})
