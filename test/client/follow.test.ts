// The client following its jobs against a real hub (its own process): one job, cancel, pages and
// filters with an iterator over all of them, and the project's printers.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { type Job, PrintHubClient, TimeoutError, verifyWebhook } from '../../src/client/index.ts'
import { cliJson, rejectsWith, type RunningHub, startHub } from './support.ts'

let hub: RunningHub
let client: PrintHubClient
const held: Job[] = []

before(async () => {
  hub = await startHub({})
  await cliJson(
    ['printers', 'add', '--project', hub.projectId, '--id', 'held', '--connection', 'virtual://held?mode=offline'],
    hub.dataDir,
  )
  client = new PrintHubClient({ baseUrl: hub.url, apiKey: hub.apiKey, projectId: hub.projectId })
  for (let i = 0; i < 7; i++) {
    const { job } = await client.jobs.create({
      printerId: 'held',
      idempotencyKey: `follow-${i}`,
      document: { width: 80, sections: [{ type: 'text', value: `ticket ${i}` }] },
      metadata: { order: `${500 + i}`, table: String(i % 2) },
    })
    held.push(job)
  }
})
after(() => hub.stop())

describe('the client following jobs', () => {
  test('one job, and not_found for one the project does not have', async () => {
    assert.deepEqual(await client.jobs.get(held[0]!.id), held[0])
    await rejectsWith(client.jobs.get('job_00000000000000000000000000000000'), 404, 'not_found')
  })

  test('pages with limit and cursor, filters, and an iterator over every page', async () => {
    const first = await client.jobs.list({ limit: 3, printerId: 'held' })
    assert.equal(first.jobs.length, 3)
    assert.equal(typeof first.nextCursor, 'string')
    const second = await client.jobs.list({ cursor: first.nextCursor!, limit: 3 })
    assert.deepEqual(
      [...first.jobs, ...second.jobs].map((j) => j.id),
      [...held]
        .reverse()
        .slice(0, 6)
        .map((j) => j.id),
    )
    const all: string[] = []
    for await (const job of client.jobs.all({ printerId: 'held', limit: 2 })) all.push(job.id)
    assert.deepEqual(
      all,
      [...held].reverse().map((j) => j.id),
    )
    const tableOne: string[] = []
    for await (const job of client.jobs.all({ metadata: { table: '1' } })) tableOne.push(job.id)
    assert.deepEqual(
      tableOne,
      held
        .filter((_, i) => i % 2 === 1)
        .reverse()
        .map((j) => j.id),
    )
    const spec = await client.jobs.list({ state: 'PENDING' })
    assert.deepEqual(Object.keys(spec), ['jobs', 'keyPrefix'])
  })

  test('cancel: a waiting job is CANCELLED, again too; a printed one is job_not_cancellable', async () => {
    assert.equal((await client.jobs.cancel(held[6]!.id)).state, 'CANCELLED')
    assert.equal((await client.jobs.cancel(held[6]!.id)).state, 'CANCELLED')
    const { job } = await client.jobs.create({
      printerId: 'demo',
      idempotencyKey: 'follow-printed',
      document: { width: 80, sections: [{ type: 'text', value: 'printed' }] },
    })
    for (let now = job; now.state !== 'COMPLETED'; now = await client.jobs.get(job.id))
      assert.ok(['PENDING', 'DISPATCHING', 'DELIVERED', 'PRINTING'].includes(now.state))
    const error = await rejectsWith(client.jobs.cancel(job.id), 409, 'job_not_cancellable')
    assert.deepEqual(error.details, [{ path: 'job.state', message: 'COMPLETED' }])
  })

  test('reprint: a new job linked to its original, found again by its key; an unknown job is not_found', async () => {
    const { job } = await client.jobs.create({
      printerId: 'demo',
      idempotencyKey: 'follow-to-reprint',
      document: { width: 80, sections: [{ type: 'text', value: 'again' }] },
    })
    const made = await client.jobs.reprint(job.id, { idempotencyKey: 'follow-reprint' })
    assert.equal(made.reprintOf, job.id)
    assert.equal(made.duplicate, false)
    assert.equal(made.job.idempotencyKey, 'follow-reprint')
    const again = await client.jobs.reprint(job.id, { idempotencyKey: 'follow-reprint' })
    assert.deepEqual([again.duplicate, again.job.id], [true, made.job.id])
    await rejectsWith(
      client.jobs.reprint('job_00000000000000000000000000000000', { idempotencyKey: 'nothing' }),
      404,
      'not_found',
    )
  })

  test("the project's printers and their state", async () => {
    const printers = await client.printers.list()
    assert.deepEqual(printers.map((p) => p.name).sort(), ['demo', 'held'])
    const one = await client.printers.get('held')
    assert.equal(one.name, 'held')
    assert.equal(one.queueDepth, 6)
    await rejectsWith(client.printers.get('nowhere'), 404, 'not_found')
  })

  test('events: an iterator over the stream, from a point; every event once, in order', async () => {
    const abort = new AbortController()
    const seen: number[] = []
    const { job } = await client.jobs.create({
      printerId: 'demo',
      idempotencyKey: 'follow-events',
      document: { width: 80, sections: [{ type: 'text', value: 'events' }] },
    })
    for await (const event of client.events({ after: 0, signal: abort.signal })) {
      assert.notEqual(event.type, 'reset')
      if (event.type === 'reset') break
      seen.push(event.id)
      if (event.type === 'job.state_changed' && event.job.id === job.id && event.state === 'COMPLETED') break
    }
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => a - b),
    )
    assert.equal(new Set(seen).size, seen.length)
    // From the middle: exactly what followed.
    const from = seen[Math.floor(seen.length / 2)]!
    const again: number[] = []
    for await (const event of client.events({ after: from })) {
      if (event.type === 'reset') break
      again.push(event.id)
      if (again.length === seen.length - seen.indexOf(from) - 1) break
    }
    assert.deepEqual(again, seen.slice(seen.indexOf(from) + 1))
  })

  test('wait: until the job is printed; a TimeoutError when it does not come in time', async () => {
    const { job } = await client.jobs.create({
      printerId: 'demo',
      idempotencyKey: 'follow-wait',
      document: { width: 80, sections: [{ type: 'text', value: 'wait' }] },
    })
    assert.equal((await client.jobs.wait(job.id, { until: ['COMPLETED'], timeoutMs: 10_000 })).state, 'COMPLETED')
    await assert.rejects(
      client.jobs.wait(held[0]!.id, { until: ['COMPLETED'], timeoutMs: 300 }),
      (error: unknown) => error instanceof TimeoutError,
    )
  })

  test(
    'webhooks: made with their secret once, listed without it, deleted; a ' + 'delivery verifies with the secret',
    async () => {
      // A receiver as a Node application would run it (node:http, under Bun as well).
      const deliveries: { headers: Record<string, string | string[] | undefined>; body: string }[] = []
      const receiver = createServer((request, response) => {
        let body = ''
        request.setEncoding('utf8')
        request.on('data', (chunk: string) => (body += chunk))
        request.on('end', () => {
          deliveries.push({ headers: request.headers, body })
          response.writeHead(200).end()
        })
      })
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
      const port = (receiver.address() as AddressInfo).port
      try {
        const { webhook, secret } = await client.webhooks.create({
          url: `http://127.0.0.1:${port}/hook`,
          events: ['job.created'],
          description: 'POS',
        })
        assert.match(secret, /^whsec_/)
        assert.deepEqual(
          (await client.webhooks.list()).map((w) => [w.id, w.description, w.disabledAt]),
          [[webhook.id, 'POS', null]],
        )
        const { job } = await client.jobs.create({
          printerId: 'held',
          idempotencyKey: 'follow-webhook',
          document: { width: 80, sections: [{ type: 'cut' }] },
        })
        for (let i = 0; i < 200 && deliveries.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25))
        const body = await verifyWebhook(secret, deliveries[0]!.headers, deliveries[0]!.body)
        assert.equal(body.type, 'job.created')
        assert.equal((body.data as { job: Job }).job.id, job.id)
        await client.webhooks.delete(webhook.id)
        assert.deepEqual(await client.webhooks.list(), [])
        await rejectsWith(client.webhooks.delete(webhook.id), 404, 'not_found')
      } finally {
        receiver.close()
      }
    },
  )

  test('fan-out parents: listed with fanOut, page after page, each with its children', async () => {
    const made = await fetch(`${hub.url}/v1/projects/${hub.projectId}/destinations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'everywhere', mode: 'all', printers: ['demo', 'held'] }),
    })
    assert.equal(made.status, 201)
    const parents: Job[] = []
    for (let i = 0; i < 3; i++)
      parents.push(
        (
          await client.jobs.create({
            printerId: 'everywhere',
            idempotencyKey: `follow-fan-out-${i}`,
            document: { width: 80, sections: [{ type: 'text', value: `order ${i}` }] },
          })
        ).job,
      )
    const newest = parents.map((p) => p.id).reverse()
    assert.deepEqual(
      (await client.jobs.list({ fanOut: true })).jobs.map((j) => j.id),
      newest,
    )
    const all: string[] = []
    for await (const job of client.jobs.all({ fanOut: true, printerId: 'everywhere', limit: 2 })) all.push(job.id)
    assert.deepEqual(all, newest)
    assert.deepEqual((await client.jobs.children(parents[0]!.id)).length, 2)
    // Without it, the list is the jobs that print: the children, never their parents.
    const plain = (await client.jobs.list()).jobs.map((j) => j.id)
    assert.ok(parents.every((p) => !plain.includes(p.id)))
  })
})
