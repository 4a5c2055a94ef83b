// A printer that polls says in a poll how it is, and that poll is answered after what it says is
// applied. A Star CloudPRNT printer told of a job it has not fetched, whose next poll says
// "410 Out of paper", is told of nothing: the job is withdrawn (its token fetches nothing) and
// waits PENDING, not printed; once the printer polls with 200 OK it is told of the job again,
// with a new token, and prints it once. The same for an Epson printer whose GetRequest carries
// status bits that say the paper is out.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { CloudPrntPrinter } from '../support/cloudprnt-printer.ts'
import { ASB_OK, ASB_RECEIPT_END, EpsonSdpPrinter } from '../support/epson-sdp-printer.ts'
import { startTestHub, submitJob, type TestHub } from '../support/hub.ts'
import { pollingHub, receipt } from '../support/polling-hub.ts'
import { waitFor } from '../support/wait.ts'

let hub: TestHub
let polling: ReturnType<typeof pollingHub>
const stops: (() => void)[] = []

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
})

afterAll(async () => {
  for (const stop of stops) stop()
  await hub.stop()
})

/** The job once it is back in its printer's queue, not printed. */
const pendingAgain = (id: string) =>
  waitFor(async () => {
    const found = await polling.job(id)
    return found.state === 'PENDING' && found.lastErrorCode !== null ? found : undefined
  }, 5_000)

test(
  'CloudPRNT: a poll that says 410 Out of paper is told of no job; the job ' +
    'it was told of is withdrawn, waits, and prints once it has paper',
  async () => {
    const mac = '00:11:62:bb:00:01'
    const url = `${hub.url}/cloudprnt`
    const star = new CloudPrntPrinter({ url, mac })
    stops.push(() => star.stop())
    await star.poll()
    await polling.adopt(mac, 'till')
    /** A poll that fetches nothing, whatever it is told. */
    const poll = async (statusCode: string) =>
      (await (
        await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ statusCode: encodeURIComponent(statusCode), printerMAC: mac }),
        })
      ).json()) as { jobReady: boolean; jobToken?: string }
    const posted = await submitJob(hub, { printerId: 'till', document: receipt(['Fault first']) })
    // Told of the job while it was fine; it does not fetch it.
    const token = await waitFor(async () => (await poll('200 OK')).jobToken, 5_000)
    // Its next poll says it is out of paper: told of nothing, and the job it was told of is withdrawn.
    expect(await poll('410 Out of paper')).toEqual({ jobReady: false })
    expect((await fetch(`${url}?mac=${mac}&type=application/vnd.star.starprnt&token=${token}`)).status).toBe(404)
    const waiting = await pendingAgain(posted.id)
    expect(waiting.lastErrorCode).toBe('printer.paper_out')
    await polling.untilState('till', 'paper_out')
    for (let i = 0; i < 5; i++) expect(await poll('410 Out of paper')).toEqual({ jobReady: false })
    expect((await polling.job(posted.id)).state).toBe('PENDING')
    // Paper again: the printer polls as it does, is told of the job with a new token, and prints it once.
    star.start()
    const done = await waitFor(
      async () => ((await polling.job(posted.id)).state === 'COMPLETED' ? polling.job(posted.id) : undefined),
      10_000,
    )
    expect(star.fetched).toHaveLength(1)
    expect(star.fetched[0]!.token).not.toBe(token)
    expect(star.confirmations).toEqual([{ code: '200 OK', status: 200 }])
    expect(done.state).toBe('COMPLETED')
  },
)

test(
  'Epson: a GetRequest whose status bits say the paper is out gets no job; ' +
    'the job offered before it is withdrawn, waits, and prints once they say ' +
    'it has paper',
  async () => {
    const name = 'X6WY000901'
    const epson = new EpsonSdpPrinter({ url: `${hub.url}/epson-sdp`, name })
    epson.sendsStatus = true
    stops.push(() => epson.stop())
    await epson.poll()
    await polling.adopt(name, 'counter', 'epson-sdp')
    const posted = await submitJob(hub, { printerId: 'counter', document: receipt(['Fault first']) })
    // Offered while the printer was fine: nothing outside the hub tells this before the printer's
    // next GetRequest, which would take the job, so the hub's own memory is looked at.
    await waitFor(() => offered(hub.hub.epsonSdp, name), 5_000)
    epson.asb = ASB_RECEIPT_END
    expect(await epson.poll()).toEqual([])
    const waiting = await pendingAgain(posted.id)
    expect(waiting.lastErrorCode).toBe('printer.paper_out')
    await polling.untilState('counter', 'paper_out')
    for (let i = 0; i < 5; i++) expect(await epson.poll()).toEqual([])
    expect((await polling.job(posted.id)).state).toBe('PENDING')
    // Paper again, as its GetRequests say: the job comes in the answer to one of them, once.
    epson.asb = ASB_OK
    epson.start()
    await waitFor(async () => (await polling.job(posted.id)).state === 'COMPLETED', 10_000)
    expect(epson.jobs).toHaveLength(1)
    expect(epson.jobs[0]!.text.map((line) => line.trim())).toContain('Fault first')
  },
)

/** Whether a job is offered to the printer `key` of `server` and waits for it to fetch it. */
function offered(server: object, key: string): boolean {
  const printers = (server as { printers?: { get(key: string): { offer?: { stage: string } } | undefined } }).printers
  return printers?.get(key)?.offer?.stage === 'offered'
}
