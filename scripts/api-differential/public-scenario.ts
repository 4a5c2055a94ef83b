// The API differential's requests to the public API (docs/api.md, src/api/routes/): every route, its answers and its
// refusals, in an order where each answer is the same on every run. A job is recorded once it has ended.
import type { Answer, Call } from './client.ts'
import { type Context, settled } from './setup.ts'

/** A 1x1 PNG (test/support/images.ts). */
export const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='

export const DOCUMENT = {
  width: 80,
  sections: [
    { type: 'text', value: 'Table 12', align: 'center', bold: true },
    { type: 'row', left: '2x Flat white', right: '7.00' },
    { type: 'divider' },
    { type: 'qr', value: 'https://example.com/r/1042' },
    { type: 'barcode', format: 'code128', value: 'ORDER1042' },
    { type: 'feed', lines: 2 },
    { type: 'cut' },
  ],
}

/** The RFC 8032 test vector 1's public key: a usable Ed25519 point, the same on both sides. */
const AGENT_PUBLIC_KEY = '11qYAYKxCrfVS_7TyWQHOg7hcvPaoiMlrwIaaPcHURo'

export function pairingBody(code: string, protocolVersion = '1'): unknown {
  return {
    protocolVersion,
    code,
    agent: { name: 'Differential agent', version: '0.1.0', platform: 'linux', installationId: 'installation_diff' },
    credential: { algorithm: 'Ed25519', publicKey: { kty: 'OKP', crv: 'Ed25519', x: AGENT_PUBLIC_KEY } },
  }
}

/** The helpers the scenarios share: a project route with its key, and a job made and waited for. */
export function routes(context: Context) {
  const { http, project, key } = context
  const api = (method: string, sub: string, call: Omit<Call, 'method' | 'path'> = {}): Promise<Answer> =>
    http.call({ method, path: `/v1/projects/${project}${sub}`, bearer: key, ...call })
  const submit = async (body: Record<string, unknown>, wait = true): Promise<string | undefined> => {
    const answer = await api('POST', '/jobs', { body: { document: DOCUMENT, ...body } })
    const id: string | undefined = answer.json?.job?.id
    if (wait) await settled(context, id)
    return id
  }
  return { api, submit }
}

export async function publicScenario(context: Context): Promise<void> {
  const { http, key, printers } = context
  const { api, submit } = routes(context)
  const plain = (path: string, call: Omit<Call, 'path'> = {}) => http.call({ path, ...call })

  // The hub itself: health, discovery, the OpenAPI document, no such route, the gateway without an upgrade.
  await plain('/health')
  await plain('/.well-known/printservice')
  await plain('/.well-known/openprinter')
  await plain('/openapi.json')
  await plain('/no-such-route')
  await plain('/.well-known/printservice/gateway')

  // Pairing: refusals in the specification's order, the code the CLI made, used twice.
  await plain('/printservice/pair', { method: 'POST', body: {} })
  await plain('/printservice/pair', { method: 'POST', body: pairingBody(context.pairingCode, '2') })
  await plain('/printservice/pair', { method: 'POST', body: pairingBody('ABCD-EFGH') })
  await plain('/printservice/pair', { method: 'POST', raw: '{"protocolVersion":' })
  await plain('/printservice/pair', { method: 'POST', body: pairingBody(context.pairingCode) })
  await plain('/printservice/pair', { method: 'POST', body: pairingBody(context.pairingCode) })

  // Printers, and who may read them.
  await api('GET', '/printers')
  await api('GET', '/printers/demo')
  await api('GET', `/printers/${printers.off}`)
  await api('GET', '/printers/no-such-printer')
  await api('GET', '/printers', { bearer: null })
  await api('GET', '/printers', { bearer: 'phk_notAKeyOfThisHubAtAll0000000000000000000' })
  await api('GET', '/printers', { bearer: context.readKey })
  await api('GET', '/printers', { bearer: context.otherKey })
  await api('GET', '/printers?unknown=1')

  // Jobs: one printed, its duplicate, and the refusals.
  const printed = await submit({ printerId: 'demo', idempotencyKey: 'order-1042', metadata: { order: '1042' } })
  await api('GET', `/jobs/${printed}`)
  await api('POST', '/jobs', { body: { printerId: 'demo', idempotencyKey: 'order-1042', document: DOCUMENT } })
  const bad = (body: unknown) => api('POST', '/jobs', { body })
  await api('POST', '/jobs', { raw: '{"printerId":' })
  await api('POST', '/jobs', { raw: '' })
  await bad({ printerId: 'demo', document: DOCUMENT })
  await bad({ printerId: 'demo', idempotencyKey: 'x', document: DOCUMENT, colour: 'red' })
  await bad({ printerId: 'demo', idempotencyKey: 'x', document: { width: 70, sections: [{ type: 'cut' }] } })
  await bad({
    printerId: 'demo',
    idempotencyKey: 'x',
    document: { width: 80, sections: [{ type: 'text', value: '\u001b' }] },
  })
  await bad({ printerId: 'demo', idempotencyKey: 'x', document: DOCUMENT, copies: 11, maxAttempts: 0 })
  await bad({ printerId: 'no-such-printer', idempotencyKey: 'x', document: DOCUMENT })
  await api('POST', '/jobs', { raw: JSON.stringify({ printerId: 'demo' }), contentType: 'text/plain' })
  await api('POST', '/jobs', { body: { printerId: 'demo', idempotencyKey: 'x', document: DOCUMENT }, bearer: null })
  await api('POST', '/jobs', {
    body: { printerId: 'demo', idempotencyKey: 'x', document: DOCUMENT },
    bearer: context.readKey,
  })
  await http.call({
    method: 'POST',
    path: '/v1/projects/prj_00000000000000000000000000000000/jobs',
    bearer: key,
    body: { printerId: 'demo', idempotencyKey: 'x', document: DOCUMENT },
  })

  // Jobs that wait (a printer set offline, one not reachable), one to a file, two copies on a 58 mm printer.
  const waiting = await submit({ printerId: 'off', idempotencyKey: 'order-1043', metadata: { order: '1043' } }, false)
  await submit({ printerId: 'unreachable', idempotencyKey: 'order-1044', maxAttempts: 1 }, false)
  const filed = await submit({
    printerId: 'file',
    idempotencyKey: 'order-1045',
    metadata: { order: '1045', table: '3' },
  })
  await api('GET', `/jobs/${filed}`)
  const copies = await submit({
    printerId: printers.second,
    idempotencyKey: 'order-1046',
    copies: 2,
    expiresInMs: 600_000,
    document: { width: 58, sections: [{ type: 'text', value: 'Two copies' }, { type: 'cut' }] },
  })
  await api('GET', `/jobs/${copies}`)
  await api('GET', `/jobs/${waiting}`)

  // The list: newest, each filter, paging on with the cursor, and the refusals.
  await api('GET', '/jobs')
  await api('GET', '/jobs?state=PENDING')
  await api('GET', '/jobs?state=COMPLETED')
  await api('GET', '/jobs?printerId=demo')
  await api('GET', `/jobs?printerId=${printers.off}`)
  await api('GET', '/jobs?metadata.order=1042')
  await api('GET', '/jobs?metadata.order=1045&metadata.table=3')
  await api('GET', '/jobs?createdAfter=2000-01-01T00:00:00.000Z')
  await api('GET', '/jobs?createdBefore=2000-01-01T00:00:00.000Z')
  await api('GET', '/jobs?createdAfter=2000-01-01T00:00:00.000Z&createdBefore=2999-01-01T00:00:00.000Z&limit=3')
  // Pages of 2: the cursor continues the query (with a new limit too), null at the end.
  const cursorOf = (answer: Answer) => encodeURIComponent(answer.json?.nextCursor ?? '')
  const second = await api('GET', `/jobs?cursor=${cursorOf(await api('GET', '/jobs?limit=2'))}`)
  await api('GET', `/jobs?cursor=${cursorOf(second)}&limit=1`)
  await api('GET', '/jobs?state=COMPLETED&limit=1')
  await api('GET', '/jobs?cursor=not-a-cursor')
  await api('GET', '/jobs?limit=0')
  await api('GET', '/jobs?limit=101')
  await api('GET', '/jobs?state=NOPE')
  await api('GET', '/jobs?createdAfter=yesterday')
  await api('GET', '/jobs?colour=red')
  await api('GET', '/jobs', { bearer: context.readKey })
  await api('GET', '/jobs', { bearer: null })

  // One job: found, of no such ID, of the other project.
  await api('GET', '/jobs/job_00000000000000000000000000000000')
  await http.call({ path: `/v1/projects/${context.otherProject}/jobs/${printed}`, bearer: context.otherKey })

  // Cancelling: a waiting job, again, a printed one, none.
  await api('POST', `/jobs/${waiting}/cancel`)
  await api('POST', `/jobs/${waiting}/cancel`)
  await api('POST', `/jobs/${printed}/cancel`)
  await api('POST', '/jobs/job_00000000000000000000000000000000/cancel')
  await api('POST', `/jobs/${printed}/cancel`, { bearer: context.readKey })

  // Reprinting: made, printed, its duplicate, a bad body, none.
  const reprint = await api('POST', `/jobs/${printed}/reprint`, { body: { idempotencyKey: 'reprint-1042' } })
  await settled(context, reprint.json?.job?.id)
  await api('GET', `/jobs/${reprint.json?.job?.id}`)
  await api('POST', `/jobs/${printed}/reprint`, { body: { idempotencyKey: 'reprint-1042' } })
  await api('POST', `/jobs/${printed}/reprint`, { body: { idempotencyKey: '' } })
  await api('POST', '/jobs/job_00000000000000000000000000000000/reprint', { body: { idempotencyKey: 'r' } })

  await webhooksImagesDestinations(context)
  await eventStreams(context)
}

async function webhooksImagesDestinations(context: Context): Promise<void> {
  const { api, submit } = routes(context)
  // Webhooks: refusals, one kept for the admin API's part (its events never happen but for a test event), one deleted.
  await api('POST', '/webhooks', { body: { url: 'ftp://example.com/hook', events: ['job.created'] } })
  await api('POST', '/webhooks', { body: { url: context.receiver.url, events: ['job.nothing'] } })
  const kept = await api('POST', '/webhooks', {
    body: { url: context.receiver.url, events: ['job.moved'], description: 'kept' },
  })
  context.receiver.secret = kept.json?.secret ?? ''
  const gone = await api('POST', '/webhooks', { body: { url: `${context.receiver.url}/2`, events: ['job.created'] } })
  await api('GET', '/webhooks')
  await api('DELETE', `/webhooks/${gone.json?.webhook?.id}`)
  await api('DELETE', `/webhooks/${gone.json?.webhook?.id}`)
  await api('GET', '/webhooks', { bearer: context.readKey })

  // Images: stored, replaced, listed, read, printed in a logo section, refused, deleted.
  await api('PUT', '/images/logo', { body: { mediaType: 'image/png', data: PNG_1X1 } })
  await api('PUT', '/images/logo', { body: { mediaType: 'image/png', data: PNG_1X1 } })
  await api('GET', '/images')
  await api('GET', '/images/logo')
  await api('GET', '/images/missing')
  await api('PUT', '/images/bad%20name', { body: { mediaType: 'image/png', data: PNG_1X1 } })
  await api('PUT', '/images/broken', { body: { mediaType: 'image/png', data: 'AAAA' } })
  await api('PUT', '/images/logo', { body: { mediaType: 'image/png', data: PNG_1X1 }, bearer: context.readKey })
  const logo = await submit({
    printerId: 'demo',
    idempotencyKey: 'logo-1',
    document: { width: 80, sections: [{ type: 'logo', name: 'logo' }, { type: 'cut' }] },
  })
  await api('GET', `/jobs/${logo}`)
  await api('DELETE', '/images/logo')
  await api('DELETE', '/images/logo')
  await api('GET', '/images')

  // Destinations: made (failover and all), refused, read, changed, printed to, deleted.
  await api('POST', '/destinations', { body: { name: 'counter', mode: 'failover', printers: ['demo', 'second'] } })
  await api('POST', '/destinations', { body: { name: 'counter', printers: ['demo'] } })
  await api('POST', '/destinations', { body: { name: 'demo', printers: ['second'] } })
  await api('POST', '/destinations', { body: { name: 'empty', printers: [] } })
  await api('POST', '/destinations', { body: { name: 'ghost', printers: ['no-such-printer'] } })
  await api('POST', '/destinations', { body: { name: 'x', printers: ['demo'] }, bearer: context.readKey })
  await api('GET', '/destinations')
  await api('GET', '/destinations/counter')
  await api('GET', '/destinations/missing')
  await api('PUT', '/destinations/counter', { body: { printers: ['second', 'demo'] } })
  await api('PUT', '/destinations/counter', { body: { mode: 'failover', printers: ['second', 'demo'] } })
  await api('PUT', '/destinations/missing', { body: { printers: ['second'] } })
  const failover = await submit({ printerId: 'counter', idempotencyKey: 'dest-1' })
  await api('GET', `/jobs/${failover}`)
  await api('POST', '/destinations', { body: { name: 'everywhere', mode: 'all', printers: ['demo', 'second'] } })
  const parent = await submit({ printerId: 'everywhere', idempotencyKey: 'fan-1', metadata: { order: '2000' } })
  await api('GET', `/jobs/${parent}`)
  await api('GET', '/jobs?fanOut=true')
  await api('GET', '/jobs?fanOut=true&printerId=everywhere&limit=5')
  await api('GET', '/jobs?metadata.order=2000')
  await api('DELETE', '/destinations/counter')
  await api('DELETE', '/destinations/counter')
  await api('GET', '/destinations')
}

/** The project's event stream: all of it, resumed after a point, from now on, and refused. */
export async function eventStreams(context: Context): Promise<void> {
  const { api } = routes(context)
  const all = await api('GET', '/events?after=0', { read: 'events' })
  const events: { id?: string; event?: string }[] = all.json?.events ?? []
  const jobEvents = events.filter((event) => event.event?.startsWith('job.'))
  const resumeAt = jobEvents[Math.min(5, jobEvents.length - 1)]?.id ?? '0'
  await api('GET', '/events', { read: 'events', headers: { 'last-event-id': resumeAt } })
  await api('GET', '/events', { read: 'events' })
  await api('GET', '/events', { headers: { 'last-event-id': 'yesterday' } })
  await api('GET', '/events?after=-1')
  await api('GET', '/events', { bearer: null })
}
