// printhub's document extensions through a real hub: the built-in agent (printhub) prints them, as
// the printer's preview shows; an agent that is not printhub is never sent them: styled text goes
// to it drawn as pictures (standard image sections, valid against OpenPrinter's schema), and a job
// with a section no picture can carry (the drawer) fails at once with agent.extension_unsupported,
// naming it; its plain jobs still go to it as they are.
import { adminToken } from '../support/fixtures.ts'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Job } from '../../src/protocol/job.ts'
import { FakeAgent, pairAgent, virtualPrinter } from '../support/fake-agent.ts'
import { startTestHub, submitJob, type TestHub } from '../support/hub.ts'
import { previewOf } from '../support/virtual.ts'
import { waitFor } from '../support/wait.ts'

let t: TestHub
let token: string
beforeAll(async () => {
  t = await startTestHub()
  token = adminToken(t.hub.store)
})
afterAll(() => t.stop())

const admin = async (method: string, path: string, body?: unknown) =>
  (await t.request(method, `/admin/v1${path}`, { key: token, body })).json()
const job = async (id: string): Promise<Job> =>
  (await (await t.request('GET', `/v1/projects/${t.projectId}/jobs/${id}`)).json()).job

const TICKET = [
  { type: 'text', value: 'Table 12', size: { width: 2, height: 2 }, align: 'center' },
  { type: 'row', left: '2x Soup', right: '9.00', underline: 'single' },
  { type: 'text', value: 'NO NUTS', invert: true, font: 'b' },
  { type: 'drawer', pin: 2 },
  { type: 'cut' },
]

describe('document extensions on the way to the printer', () => {
  test(
    'the built-in agent prints them: the preview reads large, underlined and ' + 'inverted text and the drawer pulse',
    async () => {
      const submitted = await submitJob(t, { document: { width: 80, sections: TICKET } })
      await waitFor(async () => (await job(submitted.id)).state === 'COMPLETED')
      const { receipt } = previewOf(t.hub.virtualPrinters.printed('virtual').at(-1)!)
      expect(receipt.blocks.filter((b) => b.kind === 'text' || b.kind === 'pulse')).toEqual([
        { kind: 'text', alignment: 'center', runs: [{ text: 'Table 12', bold: false, size: { width: 2, height: 2 } }] },
        {
          kind: 'text',
          alignment: 'left',
          runs: [{ text: `2x Soup${' '.repeat(48 - 11)}9.00`, bold: false, underline: 1 }],
        },
        { kind: 'text', alignment: 'left', runs: [{ text: 'NO NUTS', bold: false, invert: true, font: 'b' }] },
        { kind: 'pulse', pin: 2, onMs: 100, offMs: 500 },
      ])
      expect(receipt.warnings).toEqual([])
    },
  )

  test(
    'an agent that is not printhub gets none: styled text comes as pictures, ' +
      'a drawer fails the job naming it, a plain job comes as it is',
    async () => {
      const { code } = await admin('POST', '/pairing-codes', { ttlSeconds: 300 })
      const credentials = await pairAgent(t.url, code, 'stock agent')
      const agent = await FakeAgent.online(t.url, credentials, [virtualPrinter('till')])
      try {
        await waitFor(async () =>
          (await admin('GET', '/agents')).agents.some(
            (a: { id: string; online: boolean; printers: unknown[] }) =>
              a.id === credentials.agentId && a.online && a.printers.length > 0,
          ),
        )
        expect(
          (
            await t.request('POST', '/admin/v1/printers', {
              key: token,
              body: {
                projectId: t.projectId,
                id: 'till',
                agentId: credentials.agentId,
                agentPrinterId: 'till',
                profile: 'epson-tm-t20iii',
              },
            })
          ).status,
        ).toBe(201)

        // Text in styles OpenPrinter lacks: drawn, each section a picture as wide as the paper.
        const styled = await submitJob(t, {
          printerId: 'till',
          document: {
            width: 80,
            sections: [TICKET[0], TICKET[1], { type: 'text', value: 'plain stays text' }, { type: 'cut' }],
          },
        })
        const frame = await agent.next('server.print_job')
        expect(agent.schemaFailures).toEqual([])
        const sections = frame.payload.document.sections as {
          type: string
          mediaType?: string
          data?: string
          value?: string
        }[]
        expect(sections.map((section) => section.type)).toEqual(['image', 'image', 'text', 'cut'])
        expect(sections[2]).toEqual({ type: 'text', value: 'plain stays text' })
        const big = pngSize(sections[0]!.data!)
        expect(big).toEqual({ width: 576, height: 16 * 1.5 * 2 + 6 })
        expect(pngSize(sections[1]!.data!)).toEqual({ width: 576, height: 16 * 1.5 + 6 })
        // The agent prints it: the printer is free for the next.
        agent.jobReceived(frame)
        agent.jobSubmitted(frame)
        await waitFor(async () => (await job(styled.id)).state === 'COMPLETED')

        // A drawer no picture can open: the job fails at once, naming it, and nothing is sent.
        const drawer = await submitJob(t, { printerId: 'till', document: { width: 80, sections: TICKET } })
        const failed = await waitFor(async () => {
          const now = await job(drawer.id)
          return now.state === 'FAILED' ? now : undefined
        })
        expect(failed.lastErrorCode).toBe('agent.extension_unsupported')
        expect(failed.lastErrorMessage).toBe(
          "The printer's agent is not printhub and takes OpenPrinter v1 documents " +
            'only: sections[3].type is a printhub extension (the drawer section) that ' +
            'OpenPrinter v1 does not have.',
        )
        // Not retryable: its attempts are spent at once.
        expect(failed.attemptCount).toBe(failed.maxAttempts)
        expect(agent.all('server.print_job')).toHaveLength(1)
      } finally {
        await agent.close()
      }
    },
  )
})

/** The width and height in a PNG's header (base64). */
function pngSize(base64: string): { width: number; height: number } {
  const bytes = Buffer.from(base64, 'base64')
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
}
