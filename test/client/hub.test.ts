// The client against a real hub, started by the test as its own process.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { getPublicKeyAsync, utils } from '@noble/ed25519'
import { PrintHubClient, ValidationError, type CreateJobInput } from '../../src/client/index.ts'
import { cliJson, rejectsWith, type RunningHub, startHub } from './support.ts'

let hub: RunningHub
let client: PrintHubClient

before(async () => {
  hub = await startHub({ PRINTHUB_MAX_OPEN_JOBS: '5' })
  // An offline printer: jobs stay PENDING, so the counts and states below do not race delivery.
  await cliJson(
    ['printers', 'add', '--project', hub.projectId, '--id', 'held', '--connection', 'virtual://held?mode=offline'],
    hub.dataDir,
  )
  client = new PrintHubClient({ baseUrl: hub.url, apiKey: hub.apiKey, projectId: hub.projectId })
})
after(() => hub.stop())

const job = (idempotencyKey: string, printerId = 'held'): CreateJobInput => ({
  printerId,
  idempotencyKey,
  document: { width: 80, sections: [{ type: 'text', value: 'Table 7 · 2x Espresso', bold: true }, { type: 'cut' }] },
  metadata: { order: idempotencyKey },
})

describe('client against a real hub', () => {
  test('health and discovery', async () => {
    assert.deepEqual(await client.health(), { ok: true, service: 'printhub' })
    const discovery = await client.discover()
    assert.equal(discovery.protocolVersion, '1')
    assert.equal(discovery.endpoints.pairing, '/printservice/pair')
  })

  test('create, then the same key again is the same job', async () => {
    const created = await client.jobs.create(job('order-1'))
    assert.equal(created.duplicate, false)
    assert.equal(created.job.state, 'PENDING')
    assert.equal(created.job.idempotencyKey, 'order-1')
    assert.deepEqual(created.job.metadata, { order: 'order-1' })
    const again = await client.jobs.create(job('order-1'))
    assert.deepEqual(again, { job: created.job, duplicate: true })
  })

  test('list, with and without a state filter', async () => {
    await client.jobs.create(job('order-2'))
    const all = await client.jobs.list()
    assert.deepEqual(
      all.jobs.map((j) => j.idempotencyKey),
      ['order-2', 'order-1'],
    )
    assert.equal(all.keyPrefix, hub.apiKey.slice(0, 12))
    assert.equal((await client.jobs.list({ state: 'PENDING' })).jobs.length, 2)
    assert.deepEqual((await client.jobs.list({ state: 'COMPLETED' })).jobs, [])
  })

  test('404 for an unknown printer', async () => {
    const error = await rejectsWith(client.jobs.create(job('order-x', 'bar')), 404, 'not_found')
    assert.equal(error.method, 'POST')
    assert.equal(error.url, `${hub.url}/v1/projects/${hub.projectId}/jobs`)
  })

  test('401 for a revoked key, 401 for another project, 403 without the scope', async () => {
    const readOnly = await cliJson(['keys', 'create', '--project', hub.projectId, '--scope', 'jobs:read'], hub.dataDir)
    const reader = new PrintHubClient({ baseUrl: hub.url, apiKey: readOnly.apiKey, projectId: hub.projectId })
    await rejectsWith(reader.jobs.create(job('order-y')), 403, 'forbidden')
    assert.equal((await reader.jobs.list()).jobs.length, 2)
    const other = await cliJson(['projects', 'create', 'bar'], hub.dataDir)
    await rejectsWith(reader.project(other.id).jobs.list(), 401, 'unauthorized')
    await cliJson(['keys', 'revoke', readOnly.id], hub.dataDir)
    const error = await rejectsWith(reader.jobs.list(), 401, 'unauthorized')
    // The key is in no message.
    assert.ok(!error.message.includes(readOnly.apiKey))
  })

  test('429 entitlement_limit when the project is full (not retried for longer than allowed)', async () => {
    for (const key of ['order-3', 'order-4', 'order-5']) await client.jobs.create(job(key))
    const error = await rejectsWith(client.jobs.create(job('order-6')), 429, 'entitlement_limit')
    assert.match(error.message, /5 unfinished jobs/)
  })

  test('400 for what only the server can know: pairing codes', async () => {
    const x = Buffer.from(await getPublicKeyAsync(utils.randomSecretKey())).toString('base64url')
    const request = {
      protocolVersion: '1' as const,
      code: 'ABCD-EFGH',
      agent: { name: 'Bar Pi', version: '1.0.0', platform: 'linux', installationId: 'installation_1' },
      credential: { algorithm: 'Ed25519' as const, publicKey: { kty: 'OKP' as const, crv: 'Ed25519' as const, x } },
    }
    await rejectsWith(client.pair(request), 400, 'pairing_code_invalid')
    const { code } = await cliJson(['pairing-codes', 'create'], hub.dataDir)
    const paired = await client.pair({ ...request, code })
    assert.match(paired.agentId, /^agt_/)
    await rejectsWith(client.pair({ ...request, code }), 400, 'pairing_code_consumed')
  })

  test('a document the hub would refuse is refused before sending, naming the field', async () => {
    const bad = {
      ...job('order-z'),
      document: { width: 80, sections: [{ type: 'barcode', format: 'ean13', value: '4006381333932' }] },
    } as CreateJobInput
    const error = await client.jobs.create(bad).then(
      () => assert.fail('expected a ValidationError'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof ValidationError)
    assert.deepEqual(error.issues, [
      { path: 'document.sections[0].value', message: 'has a wrong check digit for ean13 (expected 1)' },
    ])
    // Nothing reached the hub.
    assert.equal(
      (await client.jobs.list()).jobs.some((j) => j.idempotencyKey === 'order-z'),
      false,
    )
  })
})
