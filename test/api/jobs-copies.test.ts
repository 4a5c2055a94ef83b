// The job option `copies` (a printhub extension) against a real hub: the document printed that
// many times, a cut between, as one job with one confirmation; bad values and copies that would
// make too large a document are 400 naming `copies`, and make nothing.
import { adminToken } from '../support/fixtures.ts'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Job } from '../../src/protocol/job.ts'
import { jobBody, startTestHub, submitJob, type TestHub } from '../support/hub.ts'
import { previewOf } from '../support/virtual.ts'
import { waitFor } from '../support/wait.ts'

let t: TestHub
beforeAll(async () => {
  t = await startTestHub()
})
afterAll(() => t.stop())

const job = async (id: string): Promise<Job> =>
  (await (await t.request('GET', `/v1/projects/${t.projectId}/jobs/${id}`)).json()).job
const jobCount = () => t.hub.store.db.query<{ n: number }, []>('SELECT count(*) AS n FROM jobs').get()!.n

describe('copies', () => {
  test(
    'two copies of a card slip: printed one after the other with a cut ' + 'between, one job, one confirmation',
    async () => {
      const before = t.hub.virtualPrinters.printed('virtual').length
      const slip = await submitJob(t, {
        copies: 2,
        document: {
          width: 80,
          sections: [
            { type: 'text', value: 'VISA ****1234' },
            { type: 'row', left: 'Total', right: '24.50' },
          ],
        },
      })
      await waitFor(async () => (await job(slip.id)).state === 'COMPLETED')
      const outputs = t.hub.virtualPrinters.printed('virtual').slice(before)
      expect(outputs).toHaveLength(1)
      expect(previewOf(outputs[0]!).text.filter((line) => line !== '')).toEqual([
        'VISA ****1234',
        `Total${' '.repeat(38)}24.50`,
        '[partial cut]',
        'VISA ****1234',
        `Total${' '.repeat(38)}24.50`,
      ])
      expect((await job(slip.id)).attemptCount).toBe(1)
    },
  )

  test('a document ending with its own cut is not cut twice; copies 1 is the document as it is', async () => {
    const before = t.hub.virtualPrinters.printed('virtual').length
    const three = await submitJob(t, {
      copies: 3,
      document: { width: 80, sections: [{ type: 'text', value: 'x' }, { type: 'cut' }] },
    })
    const one = await submitJob(t, {
      copies: 1,
      document: { width: 80, sections: [{ type: 'text', value: 'y' }, { type: 'cut' }] },
    })
    await waitFor(async () => (await job(three.id)).state === 'COMPLETED' && (await job(one.id)).state === 'COMPLETED')
    const texts = t.hub.virtualPrinters
      .printed('virtual')
      .slice(before)
      .map((output) => previewOf(output).text.filter((line) => line !== ''))
    expect(texts).toContainEqual(['x', '[partial cut]', 'x', '[partial cut]', 'x', '[partial cut]'])
    expect(texts).toContainEqual(['y', '[partial cut]'])
  })

  test('bad values, and copies that make too large a document, are 400 naming copies, and make nothing', async () => {
    const count = jobCount()
    const manySections = Array.from({ length: 200 }, (_, i) => ({ type: 'text', value: `line ${i}` }))
    for (const [copies, message] of [
      [0, /between 1 and 10/],
      [11, /between 1 and 10/],
      ['2', /integer|number/],
      [1.5, /integer/],
      [null, /integer|number/],
    ] as const) {
      const response = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, { body: jobBody({ copies }) })
      expect(response.status).toBe(400)
      const { error } = await response.json()
      expect({ copies, code: error.code, details: error.details }).toEqual({
        copies,
        code: 'invalid_request',
        details: [{ path: 'copies', message: expect.stringMatching(message) }],
      })
    }
    const long = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, {
      body: jobBody({ copies: 2, document: { width: 80, sections: manySections } }),
    })
    expect(long.status).toBe(400)
    expect((await long.json()).error.details).toEqual([
      { path: 'copies', message: 'makes 401 sections with the cuts between copies; a document may have at most 256' },
    ])
    const costly = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, {
      body: jobBody({ copies: 5, document: { width: 80, sections: [{ type: 'text', value: 'x'.repeat(16_000) }] } }),
    })
    expect(costly.status).toBe(400)
    expect((await costly.json()).error.details).toEqual([
      { path: 'copies', message: expect.stringMatching(/^makes a document that has 80,000 characters of text in all/) },
    ])
    expect(jobCount()).toBe(count)
  })
})

describe("what the printer's model leaves out", () => {
  test(
    "a buzzer on a model without one is noted in the job's timeline when the " + 'job is made; the rest prints',
    async () => {
      const token = adminToken(t.hub.store)
      const made = await submitJob(t, {
        document: {
          width: 80,
          sections: [
            { type: 'buzzer', times: 2 },
            { type: 'text', value: 'Order up' },
          ],
        },
      })
      await waitFor(async () => (await job(made.id)).state === 'COMPLETED')
      const { timeline } = await (await t.request('GET', `/admin/v1/jobs/${made.id}`, { key: token })).json()
      expect(
        timeline.filter((event: { errorCode: string | null }) => event.errorCode === 'render.feature_ignored'),
      ).toEqual([
        {
          at: expect.any(String),
          state: 'PENDING',
          attempt: 0,
          errorCode: 'render.feature_ignored',
          errorMessage: 'sections[0]: the printer model generic-80mm has no buzzer: the section is left out',
        },
      ])
      expect((await job(made.id)).lastErrorCode).toBeNull()
      expect(previewOf(t.hub.virtualPrinters.printed('virtual').at(-1)!).text.filter((line) => line !== '')).toEqual([
        'Order up',
      ])
    },
  )
})
