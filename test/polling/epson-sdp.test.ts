// Epson Server Direct Print end to end: a real hub on an ephemeral port, and printers written
// from Epson's SDP manual that post GetRequest and SetResponse forms to it. A printer that is not
// adopted is answered with nothing; once adopted, a job posted to it comes in the answer to its
// GetRequest as ePOS-Print XML whose command element holds ESC/POS that reads as the receipt,
// and completes on its SetResponse; a failure code is a failed attempt, tried again; a status
// with the paper out holds the jobs; a printer that takes a job and never responds leaves it
// unconfirmed, never sent twice.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ASB_OK, ASB_RECEIPT_END, EpsonSdpPrinter } from '../support/epson-sdp-printer.ts'
import { startTestHub, submitJob, type TestHub } from '../support/hub.ts'
import { pollingHub, receipt } from '../support/polling-hub.ts'
import { waitFor } from '../support/wait.ts'

let hub: TestHub
let polling: ReturnType<typeof pollingHub>
let url: string
const admin: ReturnType<typeof pollingHub>['admin'] = (...args) => polling.admin(...args)
const adopt = (key: string, id: string) => polling.adopt(key, id, 'epson-sdp')
const job = (id: string) => polling.job(id)
const settled = (id: string) => polling.settled(id)
const printers: EpsonSdpPrinter[] = []

beforeAll(async () => {
  hub = await startTestHub({
    env: {
      PRINTHUB_RETRY_INITIAL_MS: '100',
      PRINTHUB_RETRY_MAX_MS: '200',
      PRINTHUB_CLOUDPRNT_CONFIRM_MS: '1500',
      PRINTHUB_STATUS_POLL_MS: '200',
    },
  })
  polling = pollingHub(hub)
  url = `${hub.url}/epson-sdp`
})

afterAll(async () => {
  for (const printer of printers) printer.stop()
  await hub.stop()
})

function printer(name: string, id?: string): EpsonSdpPrinter {
  const made = new EpsonSdpPrinter({ url, name, id })
  printers.push(made)
  return made
}

describe('an Epson printer with Server Direct Print', () => {
  test(
    'seen for the first time: answered with nothing, listed as waiting for ' +
      'adoption under its ID, or its Name when the ID is empty',
    async () => {
      const stranger = printer('X6WY351989')
      for (let i = 0; i < 3; i++) expect(await stranger.poll()).toEqual([])
      const named = printer('ignored', 'counter-1')
      await named.poll()
      const { body } = await admin<{ printers: Record<string, unknown>[] }>('GET', '/printers/polling')
      expect(body.printers.find((p) => p.key === 'X6WY351989')).toMatchObject({
        kind: 'epson-sdp',
        adopted: false,
        state: 'online',
      })
      expect(body.printers.find((p) => p.key === 'counter-1')).toMatchObject({ kind: 'epson-sdp', adopted: false })
      expect(body.printers.some((p) => p.key === 'ignored')).toBe(false)
    },
  )

  test(
    'adopted: a job comes in the answer to its GetRequest as ePOS-Print XML ' +
      'with ESC/POS that reads as the receipt, and completes on its ' +
      'response, once',
    async () => {
      const bar = printer('X6WY000001')
      bar.start()
      const printerId = await adopt('X6WY000001', 'bar')
      const document = receipt(['Table 12', 'Größe: 2 × Espresso'])
      const posted = await submitJob(hub, { printerId: 'bar', document })
      expect(posted.printerId).toBe(printerId)
      const done = await settled(posted.id)
      expect(done.state).toBe('COMPLETED')
      expect(bar.jobs).toHaveLength(1)
      const xml = bar.jobs[0]!.xml
      expect(xml).toStartWith(
        '<?xml version="1.0" encoding="utf-8"?><PrintRequestInfo ' +
          'Version="2.00"><ePOSPrint><Parameter><devid>local_printer</devid><timeout>30000</timeout><printjobid>',
      )
      expect(xml).toContain(
        '<PrintData><epos-print xmlns="http://www.epson-pos.com/schemas/2011/03/epos-print"><command>',
      )
      expect(bar.jobs[0]!.printJobId).toMatch(/^[A-Za-z0-9_-]{1,30}$/)
      expect(bar.jobs[0]!.text.map((line) => line.trim())).toContain('Table 12')
      expect(bar.jobs[0]!.text.map((line) => line.trim())).toContain('Größe: 2 × Espresso')
      expect(bar.responses).toEqual([{ printJobId: bar.jobs[0]!.printJobId, status: 200 }])
      // The printer sends a response again when unsure the first arrived: taken, and nothing changes.
      expect(await bar.respond([bar.jobs[0]!.printJobId])).toBe(200)
      // A response for a job it was never sent is refused.
      expect(await bar.respond(['never-sent'])).toBe(404)
      expect((await job(posted.id)).state).toBe('COMPLETED')
      bar.stop()
    },
  )

  test(
    'a response with EPTR_REC_EMPTY is a failed attempt; the paper out in its ' +
      'status holds the job until its status notification says it has paper',
    async () => {
      const kitchen = printer('X6WY000002')
      kitchen.code = 'EPTR_REC_EMPTY'
      kitchen.asb = ASB_OK | ASB_RECEIPT_END
      kitchen.start()
      await adopt('X6WY000002', 'kitchen')
      const posted = await submitJob(hub, { printerId: 'kitchen', document: receipt(['Soup']) })
      await waitFor(async () => (await job(posted.id)).lastErrorCode === 'printer.paper_out', 10_000)
      await polling.untilState('kitchen', 'paper_out')
      // Polls go on; nothing more is sent while it has no paper.
      const polls = kitchen.polls
      await waitFor(() => kitchen.polls >= polls + 5, 5_000)
      expect(kitchen.jobs).toHaveLength(1)
      // The paper is in: its status notification says so, and the job prints.
      kitchen.code = ''
      kitchen.asb = ASB_OK
      expect(await kitchen.notify()).toBe(200)
      const done = await settled(posted.id)
      expect(done.state).toBe('COMPLETED')
      expect(kitchen.jobs).toHaveLength(2)
      expect(kitchen.jobs[0]!.printJobId).not.toBe(kitchen.jobs[1]!.printJobId)
      kitchen.stop()
    },
  )

  test(
    'a printer that takes a job and never responds: the job is unconfirmed ' +
      '(it may have printed), never sent again',
    async () => {
      const patio = printer('X6WY000003')
      patio.responds = false
      patio.start()
      await adopt('X6WY000003', 'patio')
      const posted = await submitJob(hub, { printerId: 'patio', document: receipt(['Cake']) })
      const failed = await settled(posted.id)
      expect(failed).toMatchObject({ state: 'FAILED', lastErrorCode: 'printer.unconfirmed' })
      const polls = patio.polls
      await waitFor(() => patio.polls >= polls + 5, 5_000)
      expect(patio.jobs).toHaveLength(1)
      // Its late response changes nothing.
      expect(await patio.respond([patio.jobs[0]!.printJobId])).toBe(404)
      expect((await job(posted.id)).state).toBe('FAILED')
      patio.stop()
    },
  )
})

describe('bad input at /epson-sdp: a clear 4xx, no state change, never a 500', () => {
  const post = (body: string, contentType = 'application/x-www-form-urlencoded') =>
    fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body })

  test('malformed requests', async () => {
    const cases: [Response, number][] = [
      [await post(''), 400],
      [await post('ConnectionType=GetRequest'), 400],
      [await post('ConnectionType=GetRequest&ID=has%20space'), 400],
      [await post(`ConnectionType=GetRequest&ID=${'x'.repeat(31)}`), 400],
      [await post('ConnectionType=Dance&ID=abc'), 400],
      [await post('ConnectionType=SetResponse&ID=abc'), 400],
      [await post('ConnectionType=SetResponse&ID=abc&ResponseFile=hello'), 400],
      [
        await post('ConnectionType=SetResponse&ID=abc&ResponseFile=%3CPrintResponseInfo%3E%3C%2FPrintResponseInfo%3E'),
        400,
      ],
      [await post('ConnectionType=GetRequest&ID=abc', 'application/json'), 415],
      [await post(`ConnectionType=GetRequest&ID=abc&x=${'y'.repeat(70_000)}`), 413],
    ]
    expect(cases.map(([response]) => response.status)).toEqual(cases.map(([, status]) => status))
    // A status notification, and a response file sent without URL encoding, are read.
    expect(
      (
        await post(
          'ConnectionType=SetStatus&ID=abc&Status=%3Cstatusmonitor%3E%3Cprinterstatus%20asbstatus%3D' +
            '%220x0F000016%22%2F%3E%3C%2Fstatusmonitor%3E',
        )
      ).status,
    ).toBe(200)
    expect(
      (
        await post(
          'ConnectionType=SetResponse&ID=abc&ResponseFile=<?xml ' +
            'version="1.0"?><PrintResponseInfo ' +
            'Version="2.00"><ePOSPrint><Parameter><printjobid>nope</printjobid></Parameter><PrintResponse><response ' +
            'success="true" code="" ' +
            'status="2"/></PrintResponse></ePOSPrint></PrintResponseInfo>',
        )
      ).status,
    ).toBe(404)
  })
})
