// The printer emulator: Epson's status bytes, requests found in a stream split anywhere, and a real
// TCP printer that a hub prints to and a socket asks for its status.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PrinterEmulator } from '../../src/emulator/emulator.ts'
import { type PrinterState, processIdResponse, realtimeStatus } from '../../src/emulator/epson-replies.ts'
import { RequestScanner } from '../../src/emulator/request-scanner.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import { render, targetFor } from '../../src/render/render.ts'
import type { Job } from '../../src/protocol/job.ts'
import { jobBody, startTestHub, type TestHub } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

const OK: PrinterState = { paper: 'ok', coverOpen: false, error: false, offline: false }
const statuses = (state: PrinterState) => [1, 2, 3, 4].map((n) => realtimeStatus(n, state))

describe('status replies', () => {
  test('DLE EOT 1 to 4, bit by bit as the ESC/POS reference gives them', () => {
    expect(statuses(OK)).toEqual([0x12, 0x12, 0x12, 0x12])
    expect(statuses({ ...OK, paper: 'near-end' })).toEqual([0x12, 0x12, 0x12, 0x1e])
    expect(statuses({ ...OK, paper: 'out' })).toEqual([0x1a, 0x32, 0x12, 0x7e])
    expect(statuses({ ...OK, coverOpen: true })).toEqual([0x1a, 0x16, 0x12, 0x12])
    expect(statuses({ ...OK, error: true })).toEqual([0x1a, 0x52, 0x32, 0x12])
    expect(realtimeStatus(5, OK)).toBeUndefined()
  })

  test('GS ( H process ID response', () => {
    expect(Array.from(processIdResponse(Uint8Array.of(0x41, 0x42, 0x43, 0x44)))).toEqual([
      0x37, 0x22, 0x41, 0x42, 0x43, 0x44, 0x00,
    ])
  })
})

describe('finding requests in the stream', () => {
  const processId = [0x1d, 0x28, 0x48, 6, 0, 48, 48, 0x31, 0x32, 0x33, 0x34]

  test('in one read, among other data, which it keeps apart', () => {
    const scanner = new RequestScanner()
    expect(
      scanner.scan(Uint8Array.of(0x1b, 0x40, 0x10, 0x04, 0x01, 0x41, ...processId, 0x10, 0x04, 0x04, 0x0a)),
    ).toEqual({
      requests: [
        { kind: 'status', n: 1 },
        { kind: 'process-id', id: Uint8Array.of(0x31, 0x32, 0x33, 0x34) },
        { kind: 'status', n: 4 },
      ],
      data: Uint8Array.of(0x1b, 0x40, 0x41, 0x0a),
    })
  })

  test('split across reads at every possible place', () => {
    const stream = [0x41, 0x10, 0x04, 0x02, ...processId, 0x1d, 0x56, 0x01]
    for (let cut = 0; cut <= stream.length; cut++) {
      const scanner = new RequestScanner()
      const first = scanner.scan(Uint8Array.from(stream.slice(0, cut)))
      const second = scanner.scan(Uint8Array.from(stream.slice(cut)))
      expect([cut, [...first.requests, ...second.requests].map((r) => r.kind)]).toEqual([cut, ['status', 'process-id']])
      expect([cut, [...first.data, ...second.data, ...scanner.flush()]]).toEqual([cut, [0x41, 0x1d, 0x56, 0x01]])
    }
  })

  test('what only looks like the start of a request is data', () => {
    const scanner = new RequestScanner()
    expect(scanner.scan(Uint8Array.of(0x1d, 0x28, 0x6b, 3, 0, 49, 67, 8, 0x10, 0x41))).toEqual({
      requests: [],
      data: Uint8Array.of(0x1d, 0x28, 0x6b, 3, 0, 49, 67, 8, 0x10, 0x41),
    })
    // A stream that ends inside what could have been a request: those bytes were data.
    expect(scanner.scan(Uint8Array.of(0x42, 0x1d, 0x28, 0x48))).toEqual({ requests: [], data: Uint8Array.of(0x42) })
    expect(Array.from(scanner.flush())).toEqual([0x1d, 0x28, 0x48])
  })
})

/** A raw TCP client: sends bytes, collects what comes back. */
async function connect(port: number) {
  const received: number[] = []
  const socket = await Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: { data: (_s, bytes) => void received.push(...bytes) },
  })
  return {
    received,
    send: (bytes: number[]) => socket.write(Uint8Array.from(bytes)),
    close: () => socket.end(),
  }
}

describe('the emulator on TCP', () => {
  let emulator: PrinterEmulator
  beforeAll(() => {
    emulator = PrinterEmulator.listen({
      hostname: '127.0.0.1',
      port: 0,
      profile: findProfile('generic-80mm')!,
      width: 80,
    })
  })
  afterAll(() => emulator.stop())

  test('answers status requests from its state, and a connection that only asks leaves no receipt', async () => {
    const client = await connect(emulator.port)
    client.send([0x10, 0x04, 0x01, 0x10, 0x04, 0x02, 0x10, 0x04, 0x04])
    await waitFor(() => client.received.length === 3)
    expect(client.received).toEqual([0x12, 0x12, 0x12])
    emulator.set({ paper: 'out' })
    client.send([0x10, 0x04, 0x01, 0x10, 0x04, 0x04])
    await waitFor(() => client.received.length === 5)
    expect(client.received.slice(3)).toEqual([0x1a, 0x7e])
    emulator.set({ paper: 'ok' })
    client.close()
    const before = emulator.receipts.length
    const probe = await connect(emulator.port)
    probe.send([0x10, 0x04, 0x01])
    await waitFor(() => probe.received.length === 1)
    probe.close()
    // A job after the probes is receipt number before + 1: the probes left none.
    const job = await connect(emulator.port)
    job.send([0x1b, 0x40, ...Buffer.from('Hello\n')])
    job.close()
    const receipt = await waitFor(() => emulator.receipts[before])
    expect(receipt.preview.text).toEqual(['Hello'])
    expect(receipt.held).toBe(false)
  })

  test('answers GS ( H once it can print, and marks a job that came while it could not as held', async () => {
    const client = await connect(emulator.port)
    client.send([...Buffer.from('Ticket\n'), 0x1d, 0x28, 0x48, 6, 0, 48, 48, 0x50, 0x48, 0x30, 0x31])
    await waitFor(() => client.received.length === 7)
    expect(client.received).toEqual([0x37, 0x22, 0x50, 0x48, 0x30, 0x31, 0x00])
    // Confirmed, not yet filed: the receipt is filed when the connection closes, and until then the printer is not
    // quiet.
    expect(emulator.quiet).toBe(false)
    expect(emulator.receipts.some((r) => r.preview.text[0] === 'Ticket')).toBe(false)
    client.close()
    await waitFor(() => emulator.quiet)
    expect(emulator.receipts.at(-1)!.preview.text[0]).toBe('Ticket')
    emulator.set({ coverOpen: true })
    const blocked = await connect(emulator.port)
    blocked.send([...Buffer.from('Late\n'), 0x1d, 0x28, 0x48, 6, 0, 48, 48, 0x50, 0x48, 0x30, 0x32])
    blocked.close()
    const held = await waitFor(() => emulator.receipts.find((r) => r.preview.text[0] === 'Late'))
    expect(held.held).toBe(true)
    expect(blocked.received).toEqual([])
    emulator.set({ coverOpen: false })
  })
})

describe('what the emulator keeps', () => {
  test('the newest receipts, by count and by bytes, in memory and in its directory', async () => {
    const store = mkdtempSync(join(tmpdir(), 'printhub-emulator-'))
    const emulator = PrinterEmulator.listen({
      hostname: '127.0.0.1',
      port: 0,
      profile: findProfile('generic-80mm')!,
      width: 80,
      store,
      keep: { receipts: 3, bytes: 1_000 },
    })
    try {
      const print = async (text: string) => {
        const count = emulator.printedCount
        const job = await connect(emulator.port)
        job.send([0x1b, 0x40, ...Buffer.from(`${text}\n`)])
        job.close()
        await waitFor(() => emulator.printedCount === count + 1)
      }
      for (const text of ['one', 'two', 'three', 'four', 'five']) await print(text)
      expect(emulator.printedCount).toBe(5)
      expect(emulator.receipts.map((r) => [r.number, r.preview.text[0]])).toEqual([
        [3, 'three'],
        [4, 'four'],
        [5, 'five'],
      ])
      expect(readdirSync(store).sort()).toEqual(
        ['0003', '0004', '0005'].flatMap((n) => [`${n}.bin`, `${n}.png`, `${n}.txt`]),
      )
      // A big receipt pushes the older ones out by bytes; the newest is always kept.
      await print('x'.repeat(1_200))
      expect(emulator.receipts.map((r) => r.number)).toEqual([6])
      expect(readdirSync(store).sort()).toEqual(['0006.bin', '0006.png', '0006.txt'])
    } finally {
      emulator.stop()
      rmSync(store, { recursive: true, force: true })
    }
  })
})

describe('a hub printing to the emulator', () => {
  let t: TestHub
  let emulator: PrinterEmulator
  beforeAll(async () => {
    t = await startTestHub({
      env: { PRINTHUB_RETRY_INITIAL_MS: '100', PRINTHUB_RETRY_MAX_MS: '200', PRINTHUB_STATUS_POLL_MS: '300' },
    })
    emulator = PrinterEmulator.listen({
      hostname: '127.0.0.1',
      port: 0,
      profile: findProfile('epson-tm-t20iii')!,
      width: 80,
    })
    await addPrinter('counter', `tcp://127.0.0.1:${emulator.port}`, 'epson-tm-t20iii')
  })
  afterAll(async () => {
    emulator.stop()
    await t.stop()
  })

  async function addPrinter(remoteId: string, connection: string, profile: string): Promise<void> {
    const agentId = t.hub.store.agents.builtin()!.id
    const printer = t.hub.store.printers.add({
      projectId: t.projectId,
      remoteId,
      name: null,
      connection,
      profile,
      width: 80,
      agentId,
    })!
    await waitFor(() => t.hub.sessions.session(agentId)?.printers.has(printer.id), 5_000)
  }

  async function submit(printerId: string, overrides: Record<string, unknown> = {}): Promise<Job> {
    const response = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, {
      body: jobBody({ printerId, ...overrides }),
    })
    expect(response.status).toBe(202)
    return (await response.json()).job
  }

  const until = (id: string, check: (job: Job) => boolean, timeoutMs = 5_000) =>
    waitFor(() => (check(t.hub.store.jobs.get(id)!) ? t.hub.store.jobs.get(id)! : undefined), timeoutMs)

  test('a job posted to the API arrives byte for byte, and the receipt reads as the document', async () => {
    const document = {
      width: 80 as const,
      sections: [
        { type: 'text' as const, value: 'Café Nord', align: 'center' as const },
        { type: 'row' as const, left: '2 × Flat white', right: '7,00 €' },
        { type: 'cut' as const },
      ],
    }
    const job = await submit('counter', { document })
    await until(job.id, (j) => j.state === 'COMPLETED')
    const receipt = await waitFor(() => emulator.receipts[0])
    expect(Array.from(receipt.bytes)).toEqual(Array.from(render(document, targetFor('epson-tm-t20iii', 80, 'tcp'))))
    expect(receipt.preview.text).toEqual([
      `${' '.repeat(19)}Café Nord`,
      `2 × Flat white${' '.repeat(28)}7,00 €`,
      '',
      '',
      '',
      '',
      '[partial cut]',
    ])
    expect(receipt.preview.receipt.warnings).toEqual([])
  })

  test(
    'serial: a job posted to the API arrives byte for byte at a serial ' + 'printer, COMPLETED on its confirmation',
    async () => {
      const serial = PrinterEmulator.serial({ profile: findProfile('epson-tm-t20iii')!, width: 80, baud: 115200 })
      try {
        await addPrinter('bar', `serial://${serial.serialPath}?baud=115200&flow=rtscts`, 'epson-tm-t20iii')
        const document = {
          width: 80 as const,
          sections: [
            { type: 'text' as const, value: 'Straßenbar · Tisch 7' },
            { type: 'qr' as const, value: 'https://example.com/r/7' },
            { type: 'cut' as const },
          ],
        }
        const job = await submit('bar', { document })
        const done = await until(job.id, (j) => j.state === 'COMPLETED')
        expect(done.attemptCount).toBe(1)
        const receipt = await waitFor(() => serial.receipts[0])
        expect(Array.from(receipt.bytes)).toEqual(
          Array.from(render(document, targetFor('epson-tm-t20iii', 80, 'serial'))),
        )
        expect(receipt.lost).toBe(0)
        expect(receipt.preview.text[0]).toBe('Straßenbar · Tisch 7')
      } finally {
        serial.stop()
      }
    },
  )

  test('out of paper: not a byte written, the job waits, then prints once when the paper is back', async () => {
    const before = emulator.receipts.length
    emulator.set({ paper: 'out' })
    const job = await submit('counter', { maxAttempts: 10 })
    // Whether the watch saw it first (the job is held) or the check before the job did (the
    // attempt failed), the job waits and the printer got nothing.
    const waiting = await until(
      job.id,
      (j) => j.state === 'PENDING' && (j.attemptCount === 0 || j.lastErrorCode === 'printer.paper_out'),
    )
    expect(waiting.lastErrorCode === null || waiting.lastErrorCode === 'printer.paper_out').toBe(true)
    expect(emulator.receipts.length).toBe(before)
    emulator.set({ paper: 'ok' })
    const done = await until(job.id, (j) => j.state === 'COMPLETED')
    // The printer confirms before it closes the connection, where it files the receipt.
    await waitFor(() => emulator.quiet)
    expect(emulator.receipts.length).toBe(before + 1)
    expect(emulator.receipts.at(-1)!.held).toBe(false)
    // Every attempt before the last failed on the paper, and printed nothing.
    if (done.attemptCount > 1) expect(done.lastErrorCode).toBe('printer.paper_out')
  })

  test('a printer that never answers status requests still prints: status is then unknown, not offline', async () => {
    const received: number[] = []
    const silent = Bun.listen({
      hostname: '127.0.0.1',
      port: 0,
      socket: { data: (_s, bytes) => void received.push(...bytes) },
    })
    try {
      await addPrinter('silent', `tcp://127.0.0.1:${silent.port}`, 'epson-tm-t20iii')
      const requests = () =>
        received.flatMap((byte, i) => (byte === 0x10 && received[i + 1] === 0x04 ? [received[i + 2]] : []))
      const first = await until((await submit('silent')).id, (j) => j.state === 'COMPLETED')
      // Asked before the first job (by the job, and maybe the idle watch at the same moment).
      const asked = requests()
      expect(asked.slice(0, 3)).toEqual([1, 2, 4])
      const second = await until((await submit('silent')).id, (j) => j.state === 'COMPLETED')
      expect([first.attemptCount, second.attemptCount]).toEqual([1, 1])
      // Not asked again: the second job was not kept waiting.
      expect(requests()).toEqual(asked)
    } finally {
      silent.stop(true)
    }
  })
})

describe('watching idle printers', () => {
  let t: TestHub
  let emulator: PrinterEmulator
  beforeAll(async () => {
    t = await startTestHub({ env: { PRINTHUB_STATUS_POLL_MS: '300' } })
    emulator = PrinterEmulator.listen({
      hostname: '127.0.0.1',
      port: 0,
      profile: findProfile('epson-tm-t20iii')!,
      width: 80,
    })
    const agentId = t.hub.store.agents.builtin()!.id
    const printer = t.hub.store.printers.add({
      projectId: t.projectId,
      remoteId: 'watched',
      name: null,
      connection: `tcp://127.0.0.1:${emulator.port}`,
      profile: 'epson-tm-t20iii',
      width: 80,
      agentId,
    })!
    await waitFor(() => t.hub.sessions.session(agentId)?.printers.has(printer.id), 5_000)
  })
  afterAll(async () => {
    emulator.stop()
    await t.stop()
  })

  async function submit(printerId: string): Promise<Job> {
    const response = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, { body: jobBody({ printerId }) })
    expect(response.status).toBe(202)
    return (await response.json()).job
  }

  const until = (id: string, check: (job: Job) => boolean, timeoutMs = 5_000) =>
    waitFor(() => (check(t.hub.store.jobs.get(id)!) ? t.hub.store.jobs.get(id)! : undefined), timeoutMs)

  test(
    'an idle printer is watched: out of paper it shows offline within 2 s and ' + 'its jobs wait; back, they print',
    async () => {
      const agentId = t.hub.store.agents.builtin()!.id
      const record = t.hub.store.printers.list(t.projectId).find((p) => p.remoteId === 'watched')!
      const availability = () => t.hub.sessions.session(agentId)?.printers.get(record.agentPrinterId)?.availability
      await waitFor(() => availability() === 'online', 3_000)
      const before = emulator.receipts.length
      const started = performance.now()
      emulator.set({ paper: 'out' })
      await waitFor(() => availability() === 'offline', 3_000)
      expect(performance.now() - started).toBeLessThan(2_000)
      const job = await submit('watched')
      // Held by the hub: no attempt is spent on a printer known to be out of paper.
      expect(t.hub.store.jobs.get(job.id)).toMatchObject({ state: 'PENDING', attemptCount: 0 })
      emulator.set({ paper: 'ok' })
      await waitFor(() => availability() === 'online', 3_000)
      const done = await until(job.id, (j) => j.state === 'COMPLETED')
      expect(done.attemptCount).toBe(1)
      await waitFor(() => emulator.quiet)
      expect(emulator.receipts.length).toBe(before + 1)
    },
  )
})
