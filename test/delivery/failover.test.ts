// Destinations in failover mode against a real hub and two emulated Epson printers on TCP (the
// built-in agent asks their status as it does a real one's): a job posted to the destination goes
// to its first printer that can print; jobs waiting at a printer out of paper for longer than the
// threshold move to the next that can, marked on the ticket and in the timeline, and never print
// twice; a job posted to a printer, not to the destination, never moves.
import { adminToken } from '../support/fixtures.ts'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type EmulatedReceipt, PrinterEmulator } from '../../src/emulator/emulator.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import type { Job } from '../../src/protocol/job.ts'
import { addBuiltinPrinter, startTestHub, submitJob, type TestHub } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

let t: TestHub
let token: string
const printed: Record<'kitchen' | 'bar', EmulatedReceipt[]> = { kitchen: [], bar: [] }
const emulators: Record<'kitchen' | 'bar', PrinterEmulator> = {} as never
const ids: Record<'kitchen' | 'bar', string> = {} as never

beforeAll(async () => {
  t = await startTestHub({
    env: {
      PRINTHUB_STATUS_POLL_MS: '200',
      PRINTHUB_FAILOVER_AFTER_MS: '600',
      PRINTHUB_RETRY_INITIAL_MS: '300',
      PRINTHUB_RETRY_MAX_MS: '1000',
    },
  })
  token = adminToken(t.hub.store)
  for (const name of ['kitchen', 'bar'] as const) {
    emulators[name] = PrinterEmulator.listen({
      hostname: '127.0.0.1',
      port: 0,
      profile: findProfile('epson-tm-t20iii')!,
      width: 80,
      onReceipt: (receipt) => printed[name].push(receipt),
    })
    ids[name] = await addBuiltinPrinter(t, name, `tcp://127.0.0.1:${emulators[name].port}`, 'epson-tm-t20iii')
  }
})
afterAll(async () => {
  await t.stop()
  for (const emulator of Object.values(emulators)) emulator.stop()
})

const job = async (id: string): Promise<Job> =>
  (await (await t.request('GET', `/v1/projects/${t.projectId}/jobs/${id}`)).json()).job
const printerState = async (name: string) =>
  (await (await t.request('GET', `/v1/projects/${t.projectId}/printers/${name}`)).json()).printer.state
const texts = (name: 'kitchen' | 'bar') =>
  printed[name].map((receipt) => receipt.preview.text.filter((line) => line !== '').join('\n'))
/**
 * The ticket a printer printed with `marker` in it, once the printer has read it to its end (the job may be COMPLETED
 * just before).
 */
const printedWith = (name: 'kitchen' | 'bar', marker: string) =>
  waitFor(() => texts(name).find((text) => text.includes(marker)))
const ticket = (value: string) => ({ width: 80, sections: [{ type: 'text', value }, { type: 'cut' }] })

describe('a failover destination', () => {
  test('made with its printers in order; its name is taken for printers too', async () => {
    const made = await t.request('POST', `/v1/projects/${t.projectId}/destinations`, {
      body: { name: 'pass', mode: 'failover', printers: ['kitchen', 'bar'] },
    })
    expect(made.status).toBe(201)
    expect((await made.json()).destination).toEqual({
      name: 'pass',
      mode: 'failover',
      printers: [ids.kitchen, ids.bar],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    const clash = await t.request('POST', '/admin/v1/printers', {
      key: token,
      body: { projectId: t.projectId, id: 'pass', connection: 'virtual://pass' },
    })
    expect(clash.status).toBe(409)
  })

  test('both can print: the first takes the job', async () => {
    await waitFor(
      async () => (await printerState('kitchen')) === 'ready' && (await printerState('bar')) === 'ready',
      10_000,
    )
    const first = await submitJob(t, { printerId: 'pass', document: ticket('<one>') })
    expect(first.printerId).toBe(ids.kitchen)
    await waitFor(async () => (await job(first.id)).state === 'COMPLETED')
    expect(await printedWith('kitchen', '<one>')).toBe('<one>\n[partial cut]')
  })

  test('the kitchen printer out of paper: new jobs go to the bar at once', async () => {
    emulators.kitchen.set({ paper: 'out' })
    await waitFor(async () => (await printerState('kitchen')) === 'paper_out', 10_000)
    const second = await submitJob(t, { printerId: 'pass', document: ticket('<two>') })
    expect(second.printerId).toBe(ids.bar)
    await waitFor(async () => (await job(second.id)).state === 'COMPLETED')
    expect(await printedWith('bar', '<two>')).toBe('<two>\n[partial cut]')
  })

  test(
    'jobs waiting at the kitchen printer move to the bar once it can print, ' +
      'marked; a job posted to the kitchen printer itself stays; nothing ' +
      'prints twice',
    async () => {
      emulators.bar.set({ paper: 'out' })
      await waitFor(async () => (await printerState('bar')) === 'paper_out', 10_000)
      // No printer of the destination can print: the job waits at the first.
      const third = await submitJob(t, { printerId: 'pass', maxAttempts: 10, document: ticket('<three>') })
      const direct = await submitJob(t, { printerId: 'kitchen', maxAttempts: 10, document: ticket('<direct>') })
      expect(third.printerId).toBe(ids.kitchen)
      const kitchenBefore = printed.kitchen.length
      emulators.bar.set({ paper: 'ok' })
      const done = await waitFor(async () => {
        const now = await job(third.id)
        return now.state === 'COMPLETED' ? now : undefined
      }, 15_000)
      expect(done.printerId).toBe(ids.bar)
      expect(await printedWith('bar', '<three>')).toBe(
        `${' '.repeat(Math.floor((48 - 39) / 2))}Printed at bar: kitchen is out ` +
          `of paper\n${'-'.repeat(48)}\n<three>\n[partial cut]`,
      )
      const { timeline } = await (await t.request('GET', `/admin/v1/jobs/${third.id}`, { key: token })).json()
      expect(timeline.filter((event: { errorCode: string | null }) => event.errorCode === 'job.moved')).toEqual([
        expect.objectContaining({ state: 'PENDING', errorMessage: 'Printed at bar: kitchen is out of paper' }),
      ])
      // Applications following the project heard of it: a job.moved event with the printer it left.
      const moves = t.hub.store.events
        .after(t.projectId, 0, 10_000)
        .filter((event) => event.type === 'job.moved' && event.job.id === third.id)
      expect(moves).toEqual([
        {
          id: expect.any(Number),
          type: 'job.moved',
          occurredAt: expect.any(String),
          previousPrinterId: ids.kitchen,
          note: 'Printed at bar: kitchen is out of paper',
          job: expect.objectContaining({ id: third.id, printerId: ids.bar, state: 'PENDING' }),
        },
      ])
      // The job posted to the kitchen printer waits for it; the kitchen printed nothing meanwhile.
      expect(['PENDING', 'DISPATCHING']).toContain((await job(direct.id)).state)
      expect(printed.kitchen.length).toBe(kitchenBefore)
      // Paper back: the kitchen prints its own job, and only that.
      emulators.kitchen.set({ paper: 'ok' })
      await waitFor(async () => (await job(direct.id)).state === 'COMPLETED', 15_000)
      await printedWith('kitchen', '<direct>')
      expect(texts('kitchen').slice(kitchenBefore)).toEqual(['<direct>\n[partial cut]'])
      for (const marker of ['<one>', '<two>', '<three>', '<direct>'])
        expect([...texts('kitchen'), ...texts('bar')].filter((text) => text.includes(marker))).toHaveLength(1)
    },
  )

  test(
    'a printer removed from the project: the tickets waiting at it for the ' + 'destination print at the next, at once',
    async () => {
      emulators.kitchen.set({ paper: 'out' })
      emulators.bar.set({ paper: 'out' })
      await waitFor(
        async () => (await printerState('kitchen')) === 'paper_out' && (await printerState('bar')) === 'paper_out',
        10_000,
      )
      const waiting = await submitJob(t, { printerId: 'pass', maxAttempts: 10, document: ticket('<four>') })
      expect(waiting.printerId).toBe(ids.kitchen)
      expect((await t.request('DELETE', `/admin/v1/printers/${ids.kitchen}`, { key: token })).status).toBeLessThan(300)
      emulators.bar.set({ paper: 'ok' })
      const done = await waitFor(async () => {
        const now = await job(waiting.id)
        return now.state === 'COMPLETED' ? now : undefined
      }, 15_000)
      expect(done.printerId).toBe(ids.bar)
      expect(await printedWith('bar', '<four>')).toContain('Printed at bar: kitchen was removed')
      // A new ticket goes to the printer the project still has.
      const next = await submitJob(t, { printerId: 'pass', document: ticket('<five>') })
      expect(next.printerId).toBe(ids.bar)
    },
  )
})
