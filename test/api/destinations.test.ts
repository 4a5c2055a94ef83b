// The destinations routes against a real hub: made, read, changed and deleted with the printers
// scopes; every bad input a 400 naming the field, names shared with printers a 409, another
// project's printers not found; nothing made when refused.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestHub, type TestHub } from '../support/hub.ts'

let t: TestHub
beforeAll(async () => {
  t = await startTestHub()
  t.hub.store.printers.add({
    projectId: t.projectId,
    remoteId: 'bar',
    name: null,
    connection: 'virtual://bar',
    profile: 'generic-80mm',
    width: 80,
    agentId: t.hub.store.agents.builtin()!.id,
  })
})
afterAll(() => t.stop())

const destinations = (method: string, suffix = '', body?: unknown, key?: string) =>
  t.request(method, `/v1/projects/${t.projectId}/destinations${suffix}`, { body, ...(key ? { key } : {}) })
const count = () => t.hub.store.db.query<{ n: number }, []>('SELECT count(*) AS n FROM destinations').get()!.n

describe('destinations', () => {
  test('made, listed, read, changed, deleted', async () => {
    const demo = t.hub.store.printers.resolve(t.projectId, 'demo')!.id
    const bar = t.hub.store.printers.resolve(t.projectId, 'bar')!.id
    const made = await destinations('POST', '', { name: 'drinks', mode: 'failover', printers: ['bar', demo] })
    expect(made.status).toBe(201)
    expect((await made.json()).destination).toMatchObject({ name: 'drinks', mode: 'failover', printers: [bar, demo] })
    expect((await (await destinations('GET')).json()).destinations.map((d: { name: string }) => d.name)).toEqual([
      'drinks',
    ])
    const changed = await destinations('PUT', '/drinks', { mode: 'failover', printers: ['demo'] })
    expect(changed.status).toBe(200)
    expect((await changed.json()).destination.printers).toEqual([demo])
    expect((await (await destinations('GET', '/drinks')).json()).destination.printers).toEqual([demo])
    expect((await destinations('DELETE', '/drinks')).status).toBe(204)
    expect((await destinations('GET', '/drinks')).status).toBe(404)
    expect((await destinations('DELETE', '/drinks')).status).toBe(404)
  })

  test(
    'bad input is 400 naming the field; a name a printer or destination has ' +
      'is 409; another key scope is 403; nothing is made',
    async () => {
      const before = count()
      for (const [body, path] of [
        [{ name: 'x', mode: 'failover', printers: [] }, 'printers'],
        [{ name: 'x', mode: 'failover', printers: ['nope'] }, 'printers[0]'],
        [{ name: 'x', mode: 'failover', printers: ['bar', 'bar'] }, 'printers'],
        [{ name: 'x', mode: 'round-robin', printers: ['bar'] }, 'mode'],
        [{ name: 'x', printers: ['bar'] }, 'mode'],
        [{ name: 'x', mode: 'all', printers: ['bar', 'nope'] }, 'printers[1]'],
        [{ name: '', mode: 'failover', printers: ['bar'] }, 'name'],
        [{ name: 'x', mode: 'failover', printers: ['bar'], extra: 1 }, 'extra'],
      ] as const) {
        const answer = await destinations('POST', '', body)
        expect({ body, status: answer.status, path: (await answer.json()).error.details?.[0]?.path }).toEqual({
          body,
          status: 400,
          path,
        })
      }
      expect((await destinations('POST', '', { name: 'bar', mode: 'failover', printers: ['demo'] })).status).toBe(409)
      const readOnly = t.hub.store.apiKeys.create(t.projectId, ['jobs:read', 'printers:read'], null).secret
      expect(
        (await destinations('POST', '', { name: 'y', mode: 'failover', printers: ['bar'] }, readOnly)).status,
      ).toBe(403)
      expect((await destinations('GET', '', undefined, readOnly)).status).toBe(200)
      expect(count()).toBe(before)
    },
  )

  test("a job posted to a destination goes to one of its printers and keeps the spec's projection", async () => {
    await destinations('POST', '', { name: 'front', mode: 'failover', printers: ['demo'] })
    const posted = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, {
      body: { printerId: 'front', idempotencyKey: 'to-front', document: { width: 80, sections: [{ type: 'cut' }] } },
    })
    expect(posted.status).toBe(202)
    const { job } = await posted.json()
    expect(job.printerId).toBe(t.hub.store.printers.resolve(t.projectId, 'demo')!.id)
    expect(Object.keys(job)).toHaveLength(15)
    const unknown = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, {
      body: {
        printerId: 'nowhere',
        idempotencyKey: 'to-nowhere',
        document: { width: 80, sections: [{ type: 'cut' }] },
      },
    })
    expect(unknown.status).toBe(404)
  })
})
