// The Epson Server Direct Print server alone, on a clock the test moves: a fault read off a job's
// response holds for a while and then is no longer known (the next job finds out), and a job too
// large for Server Direct Print is refused before a byte goes, the printer answered with nothing.
import { expect, test } from 'bun:test'
import { EpsonSdp, SDP_FAULT_HOLDS_MS } from '../../src/transports/epson-sdp.ts'
import { MAX_SDP_JOB_BYTES } from '../../src/protocol/epson-sdp.ts'
import type { ReadyPrinter } from '../../src/transports/printer-link.ts'

const MODEL = { profile: 'epson-tm-m30iii', width: 80 as const }
const form = (fields: Record<string, string>) => new URLSearchParams({ ID: 'P1', ...fields })
import { parseSdpForm } from '../../src/protocol/epson-sdp.ts'
const response = (printJobId: string, code: string, status: number) =>
  `<PrintResponseInfo Version="2.00"><ePOSPrint><Parameter><printjobid>${printJobId}</printjobid></Parameter>` +
  `<PrintResponse><response success="${code === ''}" code="${code}" ` +
  `status="${status}"/></PrintResponse></ePOSPrint></PrintResponseInfo>`

function server() {
  let clock = 1_000_000
  const sdp = new EpsonSdp({ now: () => clock, confirmTimeoutMs: 60_000 })
  sdp.serve(['P1'])
  const poll = () => sdp.post(form({ ConnectionType: 'GetRequest' }), '192.0.2.7')
  return { sdp, poll, tick: (ms: number) => (clock += ms) }
}

/**
 * A job offered and fetched by the printer's GetRequest: the ready printer, and the document the printer got once
 * `bytes` were sent.
 */
async function fetched(
  s: ReturnType<typeof server>,
  bytes: Uint8Array,
): Promise<{ printer: ReadyPrinter; xml: string; sent: Awaited<ReturnType<ReadyPrinter['send']>> }> {
  const ready = s.sdp.ready('P1', new AbortController().signal, MODEL)
  const answer = s.poll()
  const offered = await ready
  if (!offered.ok) throw new Error('not ready')
  const sent = await offered.printer.send(bytes, new AbortController().signal)
  const got = await answer
  return { printer: offered.printer, xml: got.ok ? got.xml : '', sent }
}

test(
  'a paper-out read off a job response holds for a while, then is no longer ' + 'known and the next job is sent',
  async () => {
    const s = server()
    await s.poll()
    const { xml, sent } = await fetched(s, Uint8Array.of(0x1b, 0x40))
    const id = /<printjobid>([^<]+)</.exec(xml)![1]!
    expect(sent.ok).toBe(true)
    const printed = sent.ok ? sent.printed : undefined
    expect(
      await s.sdp.post(
        form({ ConnectionType: 'SetResponse', ResponseFile: response(id, 'EPTR_REC_EMPTY', 0x80000) }),
        '192.0.2.7',
      ),
    ).toEqual({ ok: true, xml: '' })
    expect(await printed).toMatchObject({ ok: false, failure: { code: 'printer.paper_out' } })
    expect(s.sdp.state('P1')).toBe('paper_out')
    expect(await s.sdp.ready('P1', new AbortController().signal, MODEL)).toMatchObject({
      ok: false,
      failure: { code: 'printer.paper_out' },
    })
    // The printer polls on, each second; the fault holds, then is not known.
    for (let t = 0; t <= SDP_FAULT_HOLDS_MS; t += 1_000) {
      s.tick(1_000)
      await s.poll()
    }
    expect(s.sdp.state('P1')).toBe('unknown')
    const again = await fetched(s, Uint8Array.of(0x1b, 0x40))
    expect(again.xml).toContain('<command>1b40</command>')
  },
)

test(
  'a job larger than Server Direct Print carries is refused before a byte ' +
    'goes; the printer is answered with nothing',
  async () => {
    const s = server()
    await s.poll()
    const { xml, sent } = await fetched(s, new Uint8Array(MAX_SDP_JOB_BYTES + 1))
    expect(sent).toMatchObject({ ok: false, failure: { code: 'printer.failed', retryable: false } })
    expect(xml).toBe('')
    // Nothing is outstanding: a job fits again.
    const small = await fetched(s, Uint8Array.of(0x0a))
    expect(small.xml).toContain('<command>0a</command>')
  },
)

test(
  'a request the printer refused as a whole (Version 3.00) fails the job, ' +
    'not to be tried again; a bare report of it for no job is 404',
  async () => {
    const s = server()
    await s.poll()
    const { xml, sent } = await fetched(s, Uint8Array.of(0x1b, 0x40))
    expect(xml).toContain('<printjobid>')
    const refusal =
      '<PrintResponseInfo Version="3.00"><ServerDirectPrint><Response ' +
      'Success="false"><ErrorSummary>Data size is ' +
      'exceeded</ErrorSummary><ErrorDetail>Too big print ' +
      'request</ErrorDetail></Response></ServerDirectPrint></PrintResponseInfo>'
    expect(await s.sdp.post(form({ ConnectionType: 'SetResponse', ResponseFile: refusal }), '192.0.2.7')).toEqual({
      ok: true,
      xml: '',
    })
    expect(sent.ok && (await sent.printed)).toMatchObject({
      ok: false,
      failure: {
        code: 'printer.failed',
        retryable: false,
        message: 'The printer refused the job: Data size is exceeded: Too big print request.',
      },
    })
    expect(await s.sdp.post(form({ ConnectionType: 'SetResponse', ResponseFile: refusal }), '192.0.2.7')).toMatchObject(
      {
        ok: false,
        status: 404,
      },
    )
  },
)

test('documents made to slow a parser down are read in linear time (each within the test timeout)', () => {
  for (const unit of ['<Response ', '<printjobid ', '<response ', ' success="', '<ePOSPrint', '<x:']) {
    const file = `<PrintResponseInfo>${unit.repeat(Math.floor(65_000 / unit.length))}`
    expect(parseSdpForm(new URLSearchParams({ ConnectionType: 'SetResponse', ID: 'P1', ResponseFile: file })).ok).toBe(
      false,
    )
  }
})

test('a job fetched from another address than the GetRequest it was announced in is not taken', async () => {
  const s = server()
  await s.poll()
  const ready = s.sdp.ready('P1', new AbortController().signal, MODEL)
  // The printer's GetRequest takes it; a response from elsewhere settles nothing.
  const answer = s.poll()
  const offered = await ready
  if (!offered.ok) throw new Error('not ready')
  const sent = await offered.printer.send(Uint8Array.of(0x0a), new AbortController().signal)
  const id = /<printjobid>([^<]+)</.exec(((await answer) as { xml: string }).xml)![1]!
  expect(
    await s.sdp.post(form({ ConnectionType: 'SetResponse', ResponseFile: response(id, '', 2) }), '192.0.2.66'),
  ).toMatchObject({ ok: false, status: 404 })
  expect(
    await s.sdp.post(form({ ConnectionType: 'SetResponse', ResponseFile: response(id, '', 2) }), '192.0.2.7'),
  ).toEqual({ ok: true, xml: '' })
  expect(sent.ok && (await sent.printed)).toEqual({ ok: true })
})

test(
  'a GetRequest whose Status says the paper is out or the cover open gets ' +
    'no job; the job offered before it is withdrawn',
  async () => {
    const statusOf = (asb: number) =>
      `<?xml version="1.0" encoding="utf-8"?><statusmonitor ` +
      `Version="1.00"><printerstatus devicename="local_printer" ` +
      `asbstatus="0x${asb.toString(16).padStart(8, '0')}"/></statusmonitor>`
    for (const [asb, code] of [
      [0x80000, 'printer.paper_out'],
      [0x20, 'printer.cover_open'],
    ] as const) {
      const s = server()
      await s.poll()
      // Offered while the printer was fine; its next GetRequest says it cannot print.
      const ready = s.sdp.ready('P1', new AbortController().signal, MODEL)
      expect(await s.sdp.post(form({ ConnectionType: 'GetRequest', Status: statusOf(asb) }), '192.0.2.7')).toEqual({
        ok: true,
        xml: '',
      })
      expect(await ready).toMatchObject({ ok: false, failure: { code } })
      expect(s.sdp.state('P1')).toBe(code === 'printer.paper_out' ? 'paper_out' : 'cover_open')
      // Fine again, as its next GetRequest says: the withdrawn job is not in the answer.
      expect(
        await s.sdp.post(form({ ConnectionType: 'GetRequest', Status: statusOf(0x0f000016) }), '192.0.2.7'),
      ).toEqual({ ok: true, xml: '' })
      expect(s.sdp.state('P1')).toBe('online')
    }
  },
)
