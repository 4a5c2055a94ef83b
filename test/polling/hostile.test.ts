// Printers' endpoints under hostile input, as the public API is tested: random polls, fetches,
// confirmations and forms, bodies that are not UTF-8, too large or sent in chunks that never end.
// Every answer is a 2xx or a clear 4xx, never a 500, and no job changes.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestHub, submitJob, type TestHub } from '../support/hub.ts'

let hub: TestHub
beforeAll(async () => {
  hub = await startTestHub({ offline: true })
})
afterAll(() => hub.stop())

/** A small seeded random source: the same inputs on every run. */
function randomSource(seed: number) {
  let state = seed >>> 0
  const next = () => (state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!
  const text = () =>
    pick([
      '',
      'x',
      '200%20OK',
      '410 Paper out',
      '%E0%A4%A',
      '\u0000',
      '🖨️',
      'a'.repeat(Math.floor(next() * 400)),
      '00:11:62:aa:bb:cc',
      '<',
      '&',
      '../',
      String(next()),
    ])
  const value = (depth = 0): unknown => {
    const kind = pick(['string', 'number', 'bool', 'null', 'array', 'object'] as const)
    if (depth > 2 || kind === 'string') return text()
    if (kind === 'number') return pick([0, -1, 1e308, Number.MAX_SAFE_INTEGER, 0.5])
    if (kind === 'bool') return next() < 0.5
    if (kind === 'null') return null
    if (kind === 'array') return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1))
    return Object.fromEntries(
      Array.from({ length: Math.floor(next() * 4) }, () => [
        pick(['statusCode', 'printerMAC', 'clientAction', 'printingInProgress', 'request', 'result', 'jobToken', 'x']),
        value(depth + 1),
      ]),
    )
  }
  return { next, pick, text, value }
}

const statesOf = (t: TestHub) =>
  t.hub.store.db
    .query<{ id: string; state: string; attempt_count: number }, []>(
      'SELECT id, state, attempt_count FROM jobs ORDER BY seq',
    )
    .all()

test('random polls, fetches, confirmations and forms: never a 500, no job changes', async () => {
  await submitJob(hub)
  const before = statesOf(hub)
  const r = randomSource(2026)
  const statuses = new Set<number>()
  for (let i = 0; i < 300; i++) {
    const poll = await fetch(`${hub.url}/cloudprnt`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(r.value()),
    })
    statuses.add(poll.status)
    const query = new URLSearchParams(
      Object.fromEntries(
        Array.from({ length: Math.floor(r.next() * 4) }, () => [
          r.pick(['mac', 'type', 'token', 'code', 'delete', 'uid', 'zz']),
          r.text(),
        ]),
      ),
    )
    statuses.add((await fetch(`${hub.url}/cloudprnt?${query}`)).status)
    statuses.add((await fetch(`${hub.url}/cloudprnt?${query}`, { method: 'DELETE' })).status)
    const form = new URLSearchParams({
      ConnectionType: r.pick(['GetRequest', 'SetResponse', 'SetStatus', 'x', '']),
      ID: r.text(),
      Name: r.text(),
      ResponseFile: r.pick([
        '',
        '<PrintResponseInfo>',
        `<PrintResponseInfo><ePOSPrint><printjobid>${r.text()}</printjobid><response ` +
          `success="${r.text()}" status="${r.text()}" ` +
          `code="${r.text()}"/></ePOSPrint></PrintResponseInfo>`,
        r.text(),
      ]),
      Status: r.text(),
    })
    statuses.add(
      (
        await fetch(`${hub.url}/epson-sdp`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form,
        })
      ).status,
    )
  }
  expect([...statuses].filter((status) => status >= 500)).toEqual([])
  expect([...statuses].every((status) => [200, 400, 404, 413, 415].includes(status))).toBe(true)
  expect(statesOf(hub)).toEqual(before)
})

test('bodies that are not UTF-8, too large, or chunked past the limit', async () => {
  const before = statesOf(hub)
  const notUtf8 = Uint8Array.of(0x7b, 0xff, 0xfe, 0x7d)
  expect(
    (
      await fetch(`${hub.url}/cloudprnt`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: notUtf8,
      })
    ).status,
  ).toBe(400)
  expect(
    (
      await fetch(`${hub.url}/epson-sdp`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: notUtf8,
      })
    ).status,
  ).toBe(400)
  for (const [path, type] of [
    ['/cloudprnt', 'application/json'],
    ['/epson-sdp', 'application/x-www-form-urlencoded'],
  ] as const) {
    // Sent in chunks, with no declared length: cut off once past the limit, whatever follows.
    let sent = 0
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 16_384
        controller.enqueue(new Uint8Array(16_384).fill(0x61))
        if (sent > 4_000_000) controller.close()
      },
    })
    const answer = await fetch(`${hub.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': type },
      body: endless,
    })
    expect({ path, status: answer.status }).toEqual({ path, status: 413 })
    expect(sent).toBeLessThan(4_000_000)
  }
  expect(statesOf(hub)).toEqual(before)
})
