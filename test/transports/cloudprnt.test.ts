// The CloudPRNT server alone: only the address a job was announced to may fetch it and say how it
// went (a host that takes a printer's MAC address to fetch or confirm from elsewhere gets nothing);
// a printer that is not the hub's changes nothing the hub is told of; after the hub stops, no job
// is offered.
import { expect, test } from 'bun:test'
import { CloudPrnt } from '../../src/transports/cloudprnt.ts'

const MODEL = { profile: 'star-tsp143iv', width: 80 as const }
const MAC = '00:11:62:12:34:56'
const poll = (server: CloudPrnt, address: string, mac = MAC) =>
  server.poll({ statusCode: '200%20OK', printerMAC: mac }, address)

test('a job is fetched and confirmed only from the address it was announced to', async () => {
  const server = new CloudPrnt()
  server.serve([MAC])
  poll(server, '192.0.2.10')
  poll(server, '192.0.2.10')
  const ready = server.ready(MAC, new AbortController().signal, MODEL)
  const announced = poll(server, '192.0.2.10')
  expect(announced).toMatchObject({ ok: true, value: { jobReady: true } })
  const token = announced.ok ? announced.value.jobToken : undefined
  // Another host with the printer's MAC address and the token: nothing.
  expect(await server.fetch(MAC, 'application/vnd.star.starprnt', token, '192.0.2.66')).toMatchObject({ status: 404 })
  const fetching = server.fetch(MAC, 'application/vnd.star.starprnt', token, '192.0.2.10')
  const offered = await ready
  if (!offered.ok) throw new Error('not ready')
  const sent = await offered.printer.send(Uint8Array.of(0x1b, 0x40), new AbortController().signal)
  expect(await fetching).toMatchObject({ status: 200 })
  expect(server.confirm(MAC, '200%20OK', token, '192.0.2.66')).toMatchObject({ status: 404 })
  expect(server.confirm(MAC, '200%20OK', token, '192.0.2.10')).toEqual({ status: 200 })
  expect(sent.ok && (await sent.printed)).toEqual({ ok: true })
})

test(
  "a printer that is not the hub's changes nothing the hub is told of; " + 'after a stop nothing is offered',
  async () => {
    const told: string[] = []
    const server = new CloudPrnt({ changed: (mac) => told.push(mac) })
    server.serve([MAC])
    for (let i = 0; i < 20; i++) poll(server, '192.0.2.20', `00:11:62:00:00:${i.toString(16).padStart(2, '0')}`)
    poll(server, '192.0.2.10')
    expect(told).toEqual([MAC])
    server.stop()
    expect(await server.ready(MAC, new AbortController().signal, MODEL)).toEqual({ ok: false, cancelled: true })
  },
)

test(
  'a job offered before a poll that says the printer cannot print: that ' +
    'poll is told of nothing, and the job is withdrawn',
  async () => {
    const server = new CloudPrnt()
    server.serve([MAC])
    poll(server, '192.0.2.10')
    poll(server, '192.0.2.10')
    // Offered while the printer was fine; it has not polled since.
    const ready = server.ready(MAC, new AbortController().signal, MODEL)
    expect(server.poll({ statusCode: '410%20Out%20of%20paper', printerMAC: MAC }, '192.0.2.10')).toEqual({
      ok: true,
      value: { jobReady: false },
    })
    expect(await ready).toMatchObject({ ok: false, failure: { code: 'printer.paper_out' } })
    // Withdrawn: with paper again, nothing of that offer is left to announce or fetch.
    expect(poll(server, '192.0.2.10')).toEqual({ ok: true, value: { jobReady: false } })
    expect(await server.fetch(MAC, 'application/vnd.star.starprnt', undefined, '192.0.2.10')).toMatchObject({
      status: 404,
    })
  },
)
