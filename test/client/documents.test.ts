// The client refuses a document the hub would refuse before sending anything: control characters
// in printed text, named by field and code point, as the hub names them.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { type CreateJobInput, ValidationError } from '../../src/client/index.ts'
import { clientWith, fakeScheduler, faultServer, json } from './support.ts'

const API_KEY = `phk_${'a'.repeat(43)}`
const PROJECT = 'prj_test'
const jobWith = (...sections: CreateJobInput['document']['sections']): CreateJobInput => ({
  printerId: 'kitchen',
  idempotencyKey: 'order-42',
  document: { width: 80, sections },
})

describe('documents the client refuses before sending', () => {
  test(
    'a control character in a text or a row: ValidationError naming the field ' + 'and the code point; no request',
    async () => {
      const server = await faultServer([])
      const client = clientWith({ baseUrl: server.url, apiKey: API_KEY, projectId: PROJECT }, fakeScheduler())
      const cases: [CreateJobInput, string, string][] = [
        [jobWith({ type: 'text', value: 'Table 12\u001b@' }), 'document.sections[0].value', 'U+001B'],
        [
          jobWith({ type: 'cut' }, { type: 'row', left: 'Soup\u0000', right: '4.00' }),
          'document.sections[1].left',
          'U+0000',
        ],
        [jobWith({ type: 'row', left: 'Soup', right: '4.00\u009b' }), 'document.sections[0].right', 'U+009B'],
      ]
      for (const [input, path, codePoint] of cases) {
        const error = await client.jobs.create(input).then(
          () => assert.fail('expected a ValidationError'),
          (e: unknown) => e,
        )
        assert.ok(error instanceof ValidationError, String(error))
        assert.equal(error.issues.length, 1)
        assert.equal(error.issues[0]!.path, path)
        assert.match(
          error.issues[0]!.message,
          new RegExp(`control character ${codePoint.replace('+', '\\+')} at index \\d+`),
        )
        assert.ok(error.message.includes(path) && error.message.includes(codePoint), error.message)
      }
      assert.equal(server.requests.length, 0)
      await server.close()
    },
  )

  test('accents, line feeds, tabs and CRLF line ends are sent', async () => {
    const server = await faultServer([
      json(400, { error: { code: 'invalid_request', message: 'scripted', requestId: 'req_1' } }),
    ])
    const client = clientWith({ baseUrl: server.url, apiKey: API_KEY, projectId: PROJECT }, fakeScheduler())
    const input = jobWith(
      { type: 'text', value: 'Crème brûlée\nZürich · 寿司 😀\r\n\tSee you soon' },
      { type: 'row', left: 'Flat white\nextra shot', right: '3,50 €' },
    )
    // The scripted answer is a refusal: what matters is that the request went out, as it was.
    await client.jobs.create(input).catch((e: unknown) => assert.ok(!(e instanceof ValidationError), String(e)))
    assert.equal(server.requests.length, 1)
    assert.deepEqual(JSON.parse(server.requests[0]!.body).document, input.document)
    await server.close()
  })
})
