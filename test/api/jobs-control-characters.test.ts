// Text a printer cannot print is refused when the job is submitted, not accepted and failed later:
// a control character in a text or a row is 400 naming the field and its code point, and nothing
// is made (the idempotency key stays free for the corrected job).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { jobCount } from '../support/fixtures.ts'
import { jobBody, startTestHub, type TestHub } from '../support/hub.ts'

let t: TestHub
beforeAll(async () => {
  t = await startTestHub({ offline: true })
})
afterAll(() => t.stop())

const jobsPath = () => `/v1/projects/${t.projectId}/jobs`
const documentOf = (...sections: unknown[]) => ({ width: 80, sections: [...sections, { type: 'cut' }] })

describe('control characters in printed text', () => {
  const cases: [string, unknown, string, string][] = [
    ['ESC in a text', { type: 'text', value: 'Table 12\u001b@' }, 'document.sections[0].value', 'U+001B'],
    ['NUL in a text', { type: 'text', value: '\u0000' }, 'document.sections[0].value', 'U+0000'],
    [
      'BEL in a row name',
      { type: 'row', left: 'Espresso\u0007', right: '2.50' },
      'document.sections[0].left',
      'U+0007',
    ],
    [
      'DEL in a row price',
      { type: 'row', left: 'Espresso', right: '2.50\u007f' },
      'document.sections[0].right',
      'U+007F',
    ],
    ['a C1 control (NEL) in a text', { type: 'text', value: 'line\u0085next' }, 'document.sections[0].value', 'U+0085'],
  ]
  for (const [name, section, path, codePoint] of cases) {
    test(`${name}: 400 invalid_request naming ${path} and ${codePoint}; nothing made, the key still free`, async () => {
      const before = jobCount(t.hub.store)
      const body = jobBody({ document: documentOf(section) })
      const response = await t.request('POST', jobsPath(), { body })
      expect(response.status).toBe(400)
      const { error } = await response.json()
      expect(error.code).toBe('invalid_request')
      expect(error.details).toEqual([
        { path, message: expect.stringContaining(`control character ${codePoint} at index `) },
      ])
      expect(jobCount(t.hub.store)).toBe(before)
      // The same key with the text corrected is a new job, not a duplicate of anything.
      const corrected = await t.request('POST', jobsPath(), {
        body: { ...body, document: documentOf({ type: 'text', value: 'Table 12' }) },
      })
      expect(corrected.status).toBe(202)
      expect((await corrected.json()).duplicate).toBe(false)
      expect(jobCount(t.hub.store, body.idempotencyKey as string)).toBe(1)
    })
  }

  test('accents, line feeds, tabs and CRLF line ends are accepted', async () => {
    const text = 'Crème brûlée\nZürich · Łódź · Ελληνικά · 寿司 😀\r\n\tSee you soon'
    const document = documentOf(
      { type: 'text', value: text },
      { type: 'row', left: 'Flat white\nextra shot', right: '3,50 €' },
      { type: 'qr', value: 'GS1\u001d0104012345678901' },
    )
    const response = await t.request('POST', jobsPath(), { body: jobBody({ document }) })
    expect(response.status).toBe(202)
  })
})
