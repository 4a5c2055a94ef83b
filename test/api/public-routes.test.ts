import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { schemaErrors, validators } from '../support/schema.ts'
import { startTestHub, type TestHub } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

let t: TestHub
beforeAll(async () => {
  t = await startTestHub()
})
afterAll(() => t.stop())

describe('public routes', () => {
  test('GET /health is liveness only', async () => {
    const response = await fetch(`${t.url}/health`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith('application/json')
    expect(await response.json()).toEqual({ ok: true, service: 'printhub' })
  })

  test('discovery is served at both well-known paths and validates against the schema', async () => {
    for (const path of ['/.well-known/printservice', '/.well-known/openprinter']) {
      const response = await fetch(t.url + path)
      expect(response.status).toBe(200)
      const document = await response.json()
      expect(schemaErrors(validators.discovery, document)).toEqual([])
      expect(document).toEqual({
        protocolVersion: '1',
        server: { id: t.hub.serverId, name: 'printhub', version: '0.1.0' },
        endpoints: { pairing: '/printservice/pair', gateway: '/.well-known/printservice/gateway' },
        authentication: { method: 'pairing-code-ed25519', challengeTtlSeconds: 30 },
      })
    }
    expect(t.hub.serverId).toMatch(/^srv_[0-9a-f]{32}$/)
  })

  test('every response carries a request ID, errors carry it in the body too', async () => {
    const ok = await fetch(`${t.url}/health`)
    const missing = await fetch(`${t.url}/v2/nothing`)
    expect(ok.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{20}$/)
    expect(missing.status).toBe(404)
    const body = await missing.json()
    expect(body).toEqual({
      error: { code: 'not_found', message: 'No such route.', requestId: missing.headers.get('x-request-id')! },
    })
    expect(ok.headers.get('x-request-id')).not.toBe(missing.headers.get('x-request-id'))
  })

  test('a known path with another method is not found', async () => {
    const response = await fetch(`${t.url}/health`, { method: 'DELETE' })
    expect(response.status).toBe(404)
    expect((await response.json()).error.code).toBe('not_found')
  })

  test('the request log has one line per request: method, path, status, time, request id', async () => {
    const response = await fetch(`${t.url}/health?probe=1`)
    const id = response.headers.get('x-request-id')!
    await response.text()
    const line = await waitFor(() => t.logs.find((l) => l.endsWith(id)))
    expect(line).toMatch(new RegExp(`^GET /health 200 \\d+\\.\\dms ${id}$`))
  })
})

describe('discovery overrides', () => {
  test('server ID, name, version and challenge lifetime come from the environment', async () => {
    const hub = await startTestHub({
      env: {
        PRINTHUB_SERVER_ID: 'venue-hub-1',
        PRINTHUB_SERVER_NAME: 'Café Lumière',
        PRINTHUB_SERVER_VERSION: '9.9.9-venue',
        PRINTHUB_CHALLENGE_TTL_SECONDS: '120',
      },
    })
    try {
      const document = await (await fetch(`${hub.url}/.well-known/printservice`)).json()
      expect(schemaErrors(validators.discovery, document)).toEqual([])
      expect(document.server).toEqual({ id: 'venue-hub-1', name: 'Café Lumière', version: '9.9.9-venue' })
      expect(document.authentication.challengeTtlSeconds).toBe(120)
    } finally {
      await hub.stop()
    }
  })

  test('the stored server ID survives a restart', async () => {
    const first = await startTestHub()
    const id = first.hub.serverId
    await first.hub.stop()
    const again = await startTestHub({ dataDir: first.dataDir })
    try {
      expect(again.hub.serverId).toBe(id)
    } finally {
      await again.stop()
    }
  })
})
