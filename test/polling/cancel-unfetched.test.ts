// An application cancels a job that waits for a printer that polls the hub. Until the printer
// fetches it, the job is only offered (DELIVERED: the built-in agent holds it), and the public
// cancel asks the agent and answers with its outcome: 200 CANCELLED, and the job is never
// fetched afterwards (its token fetches nothing, the next poll is told of nothing). Once the
// printer fetched it, the rules of any job apply: 409, not cancellable.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Job } from '../../src/protocol/job.ts'
import { CloudPrntPrinter } from '../support/cloudprnt-printer.ts'
import { EpsonSdpPrinter } from '../support/epson-sdp-printer.ts'
import { startTestHub, submitJob, type TestHub } from '../support/hub.ts'
import { pollingHub, receipt } from '../support/polling-hub.ts'
import { blackPng } from '../support/images.ts'
import { waitFor } from '../support/wait.ts'

let hub: TestHub
let polling: ReturnType<typeof pollingHub>
let cloudprnt: string
const stops: (() => void)[] = []

beforeAll(async () => {
  hub = await startTestHub({
    env: {
      PRINTHUB_RETRY_INITIAL_MS: '100',
      PRINTHUB_RETRY_MAX_MS: '200',
      PRINTHUB_CLOUDPRNT_CONFIRM_MS: '5000',
      PRINTHUB_STATUS_POLL_MS: '200',
    },
  })
  polling = pollingHub(hub)
  cloudprnt = `${hub.url}/cloudprnt`
})

afterAll(async () => {
  for (const stop of stops) stop()
  await hub.stop()
})

const cancel = async (id: string): Promise<{ status: number; body: { job?: Job; error?: { code: string } } }> => {
  const response = await hub.request('POST', `/v1/projects/${hub.projectId}/jobs/${id}/cancel`)
  return { status: response.status, body: await response.json() }
}

/** A CloudPRNT poll that fetches nothing, whatever it is told. */
const poll = async (mac: string) =>
  (await (
    await fetch(cloudprnt, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ statusCode: '200%20OK', printerMAC: mac }),
    })
  ).json()) as { jobReady: boolean; jobToken?: string }

async function starPrinter(mac: string, id: string): Promise<CloudPrntPrinter> {
  const star = new CloudPrntPrinter({ url: cloudprnt, mac })
  stops.push(() => star.stop())
  await star.poll()
  await polling.adopt(mac, id)
  return star
}

test(
  'CloudPRNT: a job the printer was told of and has not fetched is ' +
    'cancelled by the application, and never fetched afterwards',
  async () => {
    const mac = '00:11:62:cc:00:01'
    await starPrinter(mac, 'bar')
    const posted = await submitJob(hub, { printerId: 'bar', document: receipt(['Changed my mind']) })
    const token = await waitFor(async () => (await poll(mac)).jobToken, 5_000)
    expect((await polling.job(posted.id)).state).toBe('DELIVERED')
    const cancelled = await cancel(posted.id)
    expect(cancelled.status).toBe(200)
    expect(cancelled.body.job?.state).toBe('CANCELLED')
    // Never fetched afterwards: its token fetches nothing, and the next poll is told of nothing.
    expect((await fetch(`${cloudprnt}?mac=${mac}&type=application/vnd.star.starprnt&token=${token}`)).status).toBe(404)
    expect(await poll(mac)).toEqual({ jobReady: false })
    expect((await polling.job(posted.id)).state).toBe('CANCELLED')
    // Asked again: still 200, CANCELLED.
    expect((await cancel(posted.id)).status).toBe(200)
  },
)

test(
  'CloudPRNT: a job waiting for the printer’s next poll is cancelled by the ' +
    'application; the poll is told of nothing',
  async () => {
    const mac = '00:11:62:cc:00:02'
    await starPrinter(mac, 'terrace')
    const posted = await submitJob(hub, { printerId: 'terrace', document: receipt(['Not yet polled']) })
    await waitFor(async () => (await polling.job(posted.id)).state === 'DELIVERED', 5_000)
    const cancelled = await cancel(posted.id)
    expect(cancelled.status).toBe(200)
    expect(cancelled.body.job?.state).toBe('CANCELLED')
    expect(await poll(mac)).toEqual({ jobReady: false })
  },
)

test('CloudPRNT: once the printer fetched the job, the application cannot cancel it (409), and it prints', async () => {
  const mac = '00:11:62:cc:00:03'
  const star = await starPrinter(mac, 'patio')
  star.confirms = false
  star.start()
  const posted = await submitJob(hub, { printerId: 'patio', document: receipt(['Too late']) })
  await waitFor(() => star.fetched.length === 1, 5_000)
  star.stop()
  await waitFor(async () => (await polling.job(posted.id)).state === 'PRINTING', 5_000)
  const refused = await cancel(posted.id)
  expect(refused.status).toBe(409)
  expect(refused.body.error?.code).toBe('job_not_cancellable')
  expect(await star.confirm('200 OK', star.fetched[0]!.token)).toBe(200)
  await waitFor(async () => (await polling.job(posted.id)).state === 'COMPLETED', 5_000)
})

test(
  'Epson: a job waiting for the printer’s next GetRequest is cancelled by ' +
    'the application; the GetRequest gets nothing',
  async () => {
    const name = 'X6WY000701'
    const epson = new EpsonSdpPrinter({ url: `${hub.url}/epson-sdp`, name })
    stops.push(() => epson.stop())
    await epson.poll()
    await polling.adopt(name, 'kiosk', 'epson-sdp')
    const posted = await submitJob(hub, { printerId: 'kiosk', document: receipt(['Never printed']) })
    await waitFor(async () => (await polling.job(posted.id)).state === 'DELIVERED', 5_000)
    const cancelled = await cancel(posted.id)
    expect(cancelled.status).toBe(200)
    expect(cancelled.body.job?.state).toBe('CANCELLED')
    expect(await epson.poll()).toEqual([])
    expect(epson.jobs).toEqual([])
  },
)

test(
  'CloudPRNT: a job cancelled while the agent draws it for the printer is ' + 'never offered; the next job is',
  async () => {
    const mac = '00:11:62:cc:00:04'
    const star = await starPrinter(mac, 'hall')
    // A picture of 2,048 × 2,048 pixels takes the agent a while to draw: the cancellation comes meanwhile.
    const drawn = await submitJob(hub, {
      printerId: 'hall',
      document: {
        width: 80,
        sections: [{ type: 'image', mediaType: 'image/png', data: blackPng(2048, 2048) }, { type: 'cut' }],
      },
    })
    await waitFor(async () => (await polling.job(drawn.id)).state === 'DELIVERED', 5_000)
    expect((await cancel(drawn.id)).status).toBe(200)
    // The printer's jobs go in order: once the next one printed, the cancelled one was passed over.
    const next = await submitJob(hub, { printerId: 'hall', document: receipt(['After']) })
    star.start()
    await waitFor(async () => (await polling.job(next.id)).state === 'COMPLETED', 10_000)
    star.stop()
    expect(star.fetched.map((fetched) => fetched.status)).toEqual([200])
    expect(star.fetched[0]!.text.map((line) => line.trim())).toContain('After')
    expect((await polling.job(drawn.id)).state).toBe('CANCELLED')
  },
)
