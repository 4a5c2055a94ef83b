// Star CloudPRNT end to end: a real hub on an ephemeral port, and printers written from Star's
// protocol guide that poll it over HTTP. A printer that is not adopted is offered nothing; once
// adopted, a job posted to it is fetched as StarPRNT that decodes to the receipt and completes on
// its confirmation; one out of paper is offered nothing until it has paper again; a failed
// confirmation is a failed attempt, tried again; a printer that fetches a job and disappears
// leaves it unconfirmed, never printed twice.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { CloudPrntPrinter } from '../support/cloudprnt-printer.ts'
import { startTestHub, submitJob, type TestHub } from '../support/hub.ts'
import { pollingHub, receipt } from '../support/polling-hub.ts'
import { waitFor } from '../support/wait.ts'

let hub: TestHub
let admin: ReturnType<typeof pollingHub>['admin']
let adopt: (mac: string, id: string) => Promise<string>
let job: ReturnType<typeof pollingHub>['job']
let untilState: ReturnType<typeof pollingHub>['untilState']
let cloudprnt: string
const printers: CloudPrntPrinter[] = []

beforeAll(async () => {
  hub = await startTestHub({
    env: {
      PRINTHUB_RETRY_INITIAL_MS: '100',
      PRINTHUB_RETRY_MAX_MS: '200',
      PRINTHUB_CLOUDPRNT_CONFIRM_MS: '1500',
      PRINTHUB_STATUS_POLL_MS: '200',
    },
  })
  ;({ admin, adopt, job, untilState } = pollingHub(hub))
  cloudprnt = `${hub.url}/cloudprnt`
})

afterAll(async () => {
  for (const printer of printers) printer.stop()
  await hub.stop()
})

function printer(mac: string): CloudPrntPrinter {
  const made = new CloudPrntPrinter({ url: cloudprnt, mac })
  printers.push(made)
  return made
}

describe('a Star CloudPRNT printer', () => {
  test('seen for the first time: asked what it is, offered no job, listed as waiting for adoption', async () => {
    const stranger = printer('00:11:62:AA:00:01')
    const first = await stranger.poll()
    expect(first).toEqual({ jobReady: false })
    // The first answer asked who it is; it answered in the poll after.
    expect(stranger.answers[0]).toEqual({
      jobReady: false,
      clientAction: ['ClientType', 'ClientVersion', 'PageInfo', 'GetPollInterval'].map((request) => ({
        request,
        options: '',
      })),
    })
    const { body } = await admin<{ printers: Record<string, unknown>[] }>('GET', '/printers/polling')
    expect(body.printers.find((p) => p.key === '00:11:62:aa:00:01')).toMatchObject({
      kind: 'cloudprnt',
      adopted: false,
      state: 'online',
      status: '200 OK',
      model: 'Star mC-Print3 1.5',
      pollIntervalMs: 1000,
      pageInfo: { paperWidth: '80', printWidth: '72', horizontalResolution: '8', verticalResolution: '8' },
    })
    // However often it polls, a stranger's printer is never offered anything.
    for (let i = 0; i < 5; i++) expect(await stranger.poll()).toEqual({ jobReady: false })
    expect(stranger.fetched).toEqual([])
  })

  test(
    'adopted: a job posted to it is fetched as StarPRNT that reads as the ' +
      'receipt, and completes on its confirmation, once',
    async () => {
      const bar = printer('00:11:62:aa:00:02')
      bar.start()
      await waitFor(() => bar.answers.length > 1)
      const printerId = await adopt('00-11-62-AA-00-02', 'bar')
      const document = receipt(['Table 12', 'Größe: 2 × Espresso'])
      const posted = await submitJob(hub, { printerId: 'bar', document })
      expect(posted.printerId).toBe(printerId)
      const done = await waitFor(
        async () => ((await job(posted.id)).state === 'COMPLETED' ? job(posted.id) : undefined),
        10_000,
      )
      expect(done.attemptCount).toBe(1)
      expect(bar.fetched).toHaveLength(1)
      expect(bar.fetched[0]!.type).toBe('application/vnd.star.starprnt')
      expect(bar.fetched[0]!.text.map((line) => line.trim())).toContain('Table 12')
      expect(bar.fetched[0]!.text.map((line) => line.trim())).toContain('Größe: 2 × Espresso')
      expect(bar.confirmations).toEqual([{ code: '200 OK', status: 200 }])
      // The confirmation cannot be replayed: its token is no longer outstanding, and nothing changes.
      expect(await bar.confirm('410 Paper out', bar.fetched[0]!.token)).toBe(404)
      expect((await job(posted.id)).state).toBe('COMPLETED')
      bar.stop()
    },
  )

  test('a printer that fetches PNG gets the receipt as a picture', async () => {
    const kiosk = new CloudPrntPrinter({ url: cloudprnt, mac: '00:11:62:aa:00:03', accepts: ['image/png'] })
    printers.push(kiosk)
    kiosk.start()
    await adopt('00:11:62:aa:00:03', 'kiosk')
    const posted = await submitJob(hub, { printerId: 'kiosk', document: receipt(['Order 77']) })
    await waitFor(async () => (await job(posted.id)).state === 'COMPLETED', 10_000)
    const png = kiosk.fetched[0]!
    expect(png.type).toBe('image/png')
    expect([...png.bytes.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    kiosk.stop()
  })

  test(
    'out of paper: offered nothing while it says so; the waiting ticket ' + 'prints once it has paper again',
    async () => {
      const kitchen = printer('00:11:62:aa:00:04')
      kitchen.statusCode = '410 Paper out'
      kitchen.start()
      await adopt('00:11:62:aa:00:04', 'kitchen')
      await untilState('kitchen', 'paper_out')
      const posted = await submitJob(hub, { printerId: 'kitchen', document: receipt(['Soup']) })
      // Polls go on, and no job is offered.
      const polls = kitchen.answers.length
      await waitFor(() => kitchen.answers.length >= polls + 10, 5_000)
      expect(kitchen.answers.slice(polls).every((answer) => answer.jobReady === false)).toBe(true)
      expect(kitchen.fetched).toEqual([])
      expect((await job(posted.id)).state).toBe('PENDING')
      kitchen.statusCode = '200 OK'
      await waitFor(async () => (await job(posted.id)).state === 'COMPLETED', 10_000)
      expect(kitchen.fetched).toHaveLength(1)
      kitchen.stop()
    },
  )

  test(
    'a confirmation that says it ran out of paper is a failed attempt: the ' + 'ticket is fetched again and printed',
    async () => {
      const terrace = printer('00:11:62:aa:00:05')
      terrace.confirmCode = '410 Paper out'
      terrace.start()
      await adopt('00:11:62:aa:00:05', 'terrace')
      const posted = await submitJob(hub, { printerId: 'terrace', document: receipt(['Wine']) })
      await waitFor(() => terrace.confirmations.length === 1, 10_000)
      terrace.confirmCode = '200 OK'
      const done = await waitFor(
        async () => ((await job(posted.id)).state === 'COMPLETED' ? job(posted.id) : undefined),
        10_000,
      )
      expect(done.attemptCount).toBe(2)
      expect(terrace.fetched.map((f) => f.status)).toEqual([200, 200])
      expect(new Set(terrace.fetched.map((f) => f.token)).size).toBe(2)
      expect(terrace.confirmations.map((c) => c.code)).toEqual(['410 Paper out', '200 OK'])
      terrace.stop()
    },
  )

  test(
    'in a failover destination: while it reports it is out of paper, tickets ' +
      'posted to the destination print at the next printer',
    async () => {
      const front = printer('00:11:62:aa:00:07')
      front.statusCode = '410 Paper out'
      front.start()
      await adopt('00:11:62:aa:00:07', 'front')
      await untilState('front', 'paper_out')
      const made = await hub.request('POST', `/v1/projects/${hub.projectId}/destinations`, {
        body: { name: 'counter', mode: 'failover', printers: ['front', 'demo'] },
      })
      expect(made.status).toBe(201)
      const posted = await submitJob(hub, { printerId: 'counter', document: receipt(['Coffee']) })
      const done = await waitFor(
        async () => ((await job(posted.id)).state === 'COMPLETED' ? job(posted.id) : undefined),
        10_000,
      )
      expect(done.printerId).toBe(hub.hub.store.printers.resolve(hub.projectId, 'demo')!.id)
      expect(front.fetched).toEqual([])
      front.stop()
    },
  )

  test('cancelled while offered: the next poll offers nothing and the old token ' +
    'fetches nothing; expired while the printer was away: never offered', async () => {
    const hall = printer('00:11:62:aa:00:08')
    await hall.poll()
    await adopt('00:11:62:aa:00:08', 'hall')
    await hall.poll()
    const posted = await submitJob(hub, { printerId: 'hall', document: receipt(['Tea']) })
    // Offered: the printer is told a job is ready (it does not fetch it yet).
    const token = await waitFor(async () => {
      const response = await fetch(cloudprnt, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ statusCode: '200%20OK', printerMAC: '00:11:62:aa:00:08' }),
      })
      const answer = (await response.json()) as { jobReady: boolean; jobToken?: string }
      return answer.jobReady ? answer.jobToken : undefined
    }, 5_000)
    // The venue's staff cancel it (an application may too, until the printer fetches it: cancel-unfetched.test.ts).
    expect((await admin('POST', `/jobs/${posted.id}/cancel`)).status).toBe(200)
    await waitFor(async () => (await job(posted.id)).state === 'CANCELLED', 5_000)
    expect(await hall.poll()).toEqual({ jobReady: false })
    expect(
      (await fetch(`${cloudprnt}?mac=00:11:62:aa:00:08&type=application/vnd.star.starprnt&token=${token}`)).status,
    ).toBe(404)
    // Away past its jobs' expiry: the job expires, and is not offered when the printer is back.
    const late = await submitJob(hub, { printerId: 'hall', expiresInMs: 10_000, document: receipt(['Late']) })
    await waitFor(async () => (await job(late.id)).state === 'EXPIRED', 20_000)
    expect(await hall.poll()).toEqual({ jobReady: false })
    expect(hall.fetched).toEqual([])
  }, 30_000)

  test(
    'a printer that fetches a job and disappears: the job is unconfirmed (it ' +
      'may have printed), never offered again',
    async () => {
      const patio = printer('00:11:62:aa:00:06')
      patio.confirms = false
      patio.start()
      await adopt('00:11:62:aa:00:06', 'patio')
      const posted = await submitJob(hub, { printerId: 'patio', document: receipt(['Cake']) })
      await waitFor(() => patio.fetched.length === 1, 10_000)
      patio.stop()
      const failed = await waitFor(
        async () => ((await job(posted.id)).state === 'FAILED' ? job(posted.id) : undefined),
        10_000,
      )
      expect(failed.lastErrorCode).toBe('printer.unconfirmed')
      // It gave up at once: no other attempt was made (an uncertain print is not tried again).
      expect(
        hub.hub.store.db
          .query<{ n: number }, [string]>(
            `SELECT count(*) AS n FROM job_events e JOIN jobs j ON j.seq = e.job_seq
            WHERE j.id = ? AND e.state = 'DISPATCHING'`,
          )
          .get(posted.id)!.n,
      ).toBe(1)
      // Back again: its late confirmation changes nothing, and nothing is offered.
      expect(await patio.confirm('200 OK', patio.fetched[0]!.token)).toBe(404)
      expect(await patio.poll()).toEqual({ jobReady: false })
      expect(patio.fetched).toHaveLength(1)
      expect((await job(posted.id)).state).toBe('FAILED')
    },
  )
})

describe('bad input at /cloudprnt: a clear 4xx, no state change, never a 500', () => {
  const post = (body: string, contentType = 'application/json') =>
    fetch(cloudprnt, { method: 'POST', headers: { 'content-type': contentType }, body })
  const poll = (fields: Record<string, unknown>) =>
    post(JSON.stringify({ statusCode: '200%20OK', printerMAC: '00:11:62:aa:00:99', ...fields }))

  test('malformed polls', async () => {
    const cases: [Response, number][] = [
      [await post('{"statusCode":'), 400],
      [await post('[]'), 400],
      [await post('{}'), 400],
      [await poll({ printerMAC: 'not-a-mac' }), 400],
      [await poll({ printerMAC: 42 }), 400],
      [await poll({ statusCode: 'OK' }), 400],
      [await poll({ statusCode: '2'.repeat(500) }), 400],
      [await poll({ printingInProgress: 'yes' }), 400],
      [await poll({ clientAction: 'x' }), 400],
      [await poll({ clientAction: [{ result: 1 }] }), 400],
      [await poll({ clientAction: Array.from({ length: 100 }, () => ({ request: 'ClientType', result: 'x' })) }), 400],
      [await post(JSON.stringify({ statusCode: '200', printerMAC: '00:11:62:aa:00:99' }), 'text/plain'), 415],
      [
        await post(JSON.stringify({ statusCode: '200', printerMAC: '00:11:62:aa:00:99', status: 'x'.repeat(20_000) })),
        413,
      ],
    ]
    expect(cases.map(([response]) => response.status)).toEqual(cases.map(([, status]) => status))
    // Fields printhub does not read (a barcode reader, a display, a newer firmware's) are let be.
    expect(
      (
        await poll({
          barcodeReader: [{ name: 'scanner', status: { connected: true, claimed: false } }],
          uniqueID: null,
          somethingNew: { a: 1 },
        })
      ).status,
    ).toBe(200)
  })

  test('fetches and confirmations that name no outstanding job', async () => {
    const statesOf = () =>
      hub.hub.store.db.query<{ id: string; state: string }, []>('SELECT id, state FROM jobs ORDER BY seq').all()
    const before = statesOf()
    const get = (query: string) => fetch(`${cloudprnt}?${query}`)
    const del = (query: string) => fetch(`${cloudprnt}?${query}`, { method: 'DELETE' })
    const answers = [
      [(await get('')).status, 400],
      [(await get('mac=nonsense')).status, 400],
      [(await get('mac=00:11:62:ff:ff:ff&type=application/vnd.star.starprnt')).status, 404],
      [(await get('mac=00:11:62:aa:00:02&type=application/vnd.star.starprnt&token=old')).status, 404],
      [(await get('mac=00:11:62:aa:00:02&surprise=1')).status, 400],
      [(await get(`mac=00:11:62:aa:00:02&token=${'t'.repeat(500)}`)).status, 400],
      [(await del('mac=00:11:62:aa:00:02&code=200%20OK&token=old')).status, 404],
      [(await del('mac=00:11:62:ff:ff:ff&code=200%20OK')).status, 404],
      [(await del('mac=00:11:62:aa:00:02')).status, 400],
      [(await del('mac=00:11:62:aa:00:02&code=fine')).status, 400],
      [(await get('mac=00:11:62:aa:00:02&code=200&delete')).status, 404],
    ]
    expect(answers.map(([status]) => status)).toEqual(answers.map(([, expected]) => expected))
    // Every job made above is as it was.
    expect(statesOf()).toEqual(before)
  })
})
