// A printer's next job is rendered while its current one is handed over (src/agent/render-ahead.ts):
// the bytes serve only that job rendered the same way, a failure ahead fails the job at its turn,
// and nothing prints sooner or in another order. The class alone, then the agent over the pipe to a
// printer on real TCP that holds its status answer for the first job.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import type { BuiltinLedger } from '../../src/agent/builtin-ledger.ts'
import { type NextJob, RenderAhead } from '../../src/agent/render-ahead.ts'
import type { PrintDocument } from '../../src/protocol/document.ts'
import { RenderError } from '../../src/render/errors.ts'
import { renderOffThread } from '../../src/render/off-thread.ts'
import type { RenderRequest } from '../../src/render/request.ts'
import type { AgentPipe } from '../support/agent-pipe.ts'
import { firstStartedStore, printJobPayload, type TestStore } from '../support/fixtures.ts'
import { agentWithPrinter, heldJobsLedger, statusPrinter } from '../support/status-printer.ts'
import { waitFor } from '../support/wait.ts'

const documentOf = (text: string): PrintDocument => ({ width: 80, sections: [{ type: 'text', value: text }] })
const textOf = (request: RenderRequest) => (request.document.sections[0] as { value: string }).value
const requestOf = (text: string, width: 58 | 80 = 80): RenderRequest => ({
  document: documentOf(text),
  profile: 'generic-80mm',
  width,
  link: 'tcp',
})
const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

describe('render ahead', () => {
  let rendered: string[]
  const render = async (request: RenderRequest) => {
    rendered.push(textOf(request))
    if (textOf(request) === 'broken') throw new RenderError('render.failed', 'the renderer failed: broken', false)
    return new TextEncoder().encode(`bytes of ${textOf(request)} at ${request.width}`)
  }
  /** Each printer's queue: job IDs in order, each with its text. */
  let queues: Map<string, { seq: number; jobId: string; text: string }[]>
  let width: 58 | 80
  const nextJob: NextJob = (printerId, afterSeq) => {
    const next = queues.get(printerId)?.find((job) => job.seq > afterSeq)
    return next && { jobId: next.jobId, request: requestOf(next.text, width) }
  }
  const queue = (printerId: string, ...texts: string[]) =>
    queues.set(printerId, [
      ...(queues.get(printerId) ?? []),
      ...texts.map((text, i) => ({ seq: (queues.get(printerId)?.length ?? 0) + i + 1, jobId: `j-${text}`, text })),
    ])
  beforeEach(() => {
    rendered = []
    queues = new Map()
    width = 80
  })
  const decoded = async (bytes: Promise<Uint8Array>) => new TextDecoder().decode(await bytes)

  test(
    'the job after the one handed over renders after the work of the turn, ' + 'and is not rendered again at its turn',
    async () => {
      const ahead = new RenderAhead(render, nextJob)
      queue('p', 'one', 'two')
      ahead.handingOver('p', 1)
      expect(rendered).toEqual([])
      await nextTurn()
      expect(rendered).toEqual(['two'])
      ahead.handedOver('p')
      expect(await decoded(ahead.bytes('p', 'j-two', requestOf('two')))).toBe('bytes of two at 80')
      expect(rendered).toEqual(['two'])
      // Used once: a second ask (the job sent again) renders anew.
      expect(await decoded(ahead.bytes('p', 'j-two', requestOf('two')))).toBe('bytes of two at 80')
      expect(rendered).toEqual(['two', 'two'])
    },
  )

  test(
    'a job that comes while one is handed over renders then if it is the ' +
      'next; once; none after the hand-over ended',
    async () => {
      const ahead = new RenderAhead(render, nextJob)
      queue('p', 'one')
      ahead.handingOver('p', 1)
      queue('p', 'two')
      ahead.arrived('p')
      queue('p', 'three')
      ahead.arrived('p')
      await nextTurn()
      expect(rendered).toEqual(['two'])
      ahead.handedOver('p')
      ahead.arrived('p')
      await nextTurn()
      expect(rendered).toEqual(['two'])
      // Another printer's job does not render ahead while that printer hands nothing over.
      queue('q', 'four', 'five')
      ahead.arrived('q')
      await nextTurn()
      expect(rendered).toEqual(['two'])
    },
  )

  test(
    'another job at the turn (the one ahead was cancelled) and a printer ' + 'changed meanwhile are rendered anew',
    async () => {
      const ahead = new RenderAhead(render, nextJob)
      queue('p', 'one', 'two')
      ahead.handingOver('p', 1)
      expect(await decoded(ahead.bytes('p', 'j-three', requestOf('three')))).toBe('bytes of three at 80')
      ahead.handingOver('p', 1)
      expect(await decoded(ahead.bytes('p', 'j-two', requestOf('two', 58)))).toBe('bytes of two at 58')
      // Each printer its own: one's job ahead is not another's.
      ahead.handingOver('p', 1)
      expect(await decoded(ahead.bytes('q', 'j-two', requestOf('two')))).toBe('bytes of two at 80')
      await nextTurn()
      // Three renders ahead (each in a turn of its own, the first though let go at once), and two at the turn.
      expect([...rendered].sort()).toEqual(['three', 'two', 'two', 'two', 'two', 'two'])
    },
  )

  // A renderer's failure as a rejection, and as a throw before any promise is made.
  for (const [how, failing] of [
    ['rejects', render],
    [
      'throws at once',
      (request: RenderRequest): Promise<Uint8Array> => {
        rendered.push(textOf(request))
        throw new RenderError('render.failed', 'the renderer failed: broken', false)
      },
    ],
  ] as const) {
    test(
      `a render that ${how} ahead fails the job at its turn, with the same ` + `error; nobody hears of it before`,
      async () => {
        const ahead = new RenderAhead(failing, nextJob)
        queue('p', 'one', 'broken')
        ahead.handingOver('p', 1)
        await nextTurn()
        await nextTurn()
        expect(rendered).toEqual(['broken'])
        const error = await ahead.bytes('p', 'j-broken', requestOf('broken')).catch((failure: unknown) => failure)
        expect(error).toBeInstanceOf(RenderError)
        expect((error as RenderError).code).toBe('render.failed')
        expect(rendered).toEqual(['broken'])
      },
    )
  }

  test('what was rendered ahead for a printer no longer served is let go', async () => {
    const ahead = new RenderAhead(render, nextJob)
    queue('p', 'one', 'two')
    queue('q', 'three', 'four')
    ahead.handingOver('p', 1)
    ahead.handingOver('q', 1)
    ahead.keepOnly(new Set(['q']))
    await nextTurn()
    await ahead.bytes('p', 'j-two', requestOf('two'))
    await ahead.bytes('q', 'j-four', requestOf('four'))
    expect(rendered).toEqual(['two', 'four', 'two'])
  })
})

describe("the agent renders a printer's next job while the current one is handed over", () => {
  let world: TestStore
  let ledger: BuiltinLedger
  let hold: ReturnType<typeof heldJobsLedger>['hold']
  let pipe: AgentPipe | undefined
  /** The printer answers its first connection (the status watch's) once released. */
  let release: () => void
  let printer: ReturnType<typeof statusPrinter>
  /** What the agent rendered, in order, and whether the printer had been answered yet. */
  let renders: { text: string; printerAnswered: boolean }[]
  let answered = false

  beforeEach(async () => {
    world = await firstStartedStore()
    renders = []
    answered = false
    const released = new Promise<void>((resolve) => (release = resolve))
    printer = statusPrinter(() => released)
    ;({ ledger, hold } = heldJobsLedger(world))
  })

  afterEach(async () => {
    await pipe?.stop()
    pipe = undefined
    ledger.close()
    world.close()
    printer.stop()
  })

  test(
    'the next job is rendered while the printer has not yet answered for the ' +
      'current one; a failure ahead is told at its turn; all print in ' +
      'order, once',
    async () => {
      pipe = await agentWithPrinter(world, ledger, printer.port, (request) => {
        renders.push({ text: textOf(request), printerAnswered: answered })
        if (textOf(request) === 'JOB-broken')
          return Promise.reject(new RenderError('render.failed', 'the renderer failed: broken', false))
        return renderOffThread(request)
      })
      // The status watch's first ask is the printer's first connection: answered once released below.
      await waitFor(() => printer.connections.length === 1)
      const payloads = ['JOB-one', 'JOB-broken', 'JOB-three'].map((text, order) => {
        const payload = printJobPayload('p', documentOf(text))
        hold(payload, order)
        pipe!.printJob(payload)
        return payload
      })
      await waitFor(() => renders.length === 2)
      // The first job waits for the watch's connection; the second was rendered meanwhile, once.
      expect(renders).toEqual([
        { text: 'JOB-one', printerAnswered: false },
        { text: 'JOB-broken', printerAnswered: false },
      ])
      expect(pipe.heardOf(payloads[1]!.jobId, 'failed')).toBe(0)
      answered = true
      release()

      await waitFor(() => pipe!.heardOf(payloads[2]!.jobId, 'completed') === 1, 10_000)
      // The broken job failed at its turn: after the first completed, before the third was sent.
      const order = pipe.heard
        .filter((report) => report.kind === 'completed' || report.kind === 'failed')
        .map((report) => `${report.kind} ${report.jobId}`)
      expect(order).toEqual([
        `completed ${payloads[0]!.jobId}`,
        `failed ${payloads[1]!.jobId}`,
        `completed ${payloads[2]!.jobId}`,
      ])
      const failed = pipe.heard.find((report) => report.kind === 'failed')
      expect(failed?.kind === 'failed' && failed.failure.code).toBe('render.failed')
      // Each job rendered once: the third ahead of its turn too, while the first was handed over.
      expect(renders.map((render) => render.text)).toEqual(['JOB-one', 'JOB-broken', 'JOB-three'])
      // The printer had each printable job once, in order, each on a connection of its own.
      await waitFor(() => printer.connections.filter((connection) => connection.closed).length >= 3)
      const jobs = printer.texts().filter((text) => text.includes('JOB-'))
      expect(jobs.map((text) => /JOB-[a-z]+/.exec(text)![0])).toEqual(['JOB-one', 'JOB-three'])
    },
  )
})
