// Every bad input gets a clear error and changes nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { jobCount as storedJobs } from '../support/fixtures.ts'
import { jobBody, startTestHub, type TestHub } from '../support/hub.ts'
import { pngOfSize } from '../support/images.ts'
import { rawRequest } from '../support/raw-http.ts'

let t: TestHub
beforeAll(async () => {
  t = await startTestHub({ offline: true })
})
afterAll(() => t.stop())

const jobsPath = () => `/v1/projects/${t.projectId}/jobs`
const jobCount = () => storedJobs(t.hub.store)

async function expectRefused(response: Response, status: number, code: string) {
  expect(response.status).toBe(status)
  const body = await response.json()
  expect(body.error.code).toBe(code)
  expect(body.error.requestId).toBe(response.headers.get('x-request-id')!)
  expect(typeof body.error.message).toBe('string')
  expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/)
  return body.error
}

describe('invalid job bodies: 400 invalid_request naming each field', () => {
  const cases: [string, Record<string, unknown>, { path: string; message: RegExp }[]][] = [
    ['missing printerId', { printerId: undefined }, [{ path: 'printerId', message: /is required/ }]],
    ['empty printerId', { printerId: '' }, [{ path: 'printerId', message: /1 to 256 characters/ }]],
    ['printerId too long', { printerId: 'p'.repeat(257) }, [{ path: 'printerId', message: /1 to 256 characters/ }]],
    ['numeric printerId', { printerId: 7 }, [{ path: 'printerId', message: /must be a string, not a number/ }]],
    ['missing idempotencyKey', { idempotencyKey: undefined }, [{ path: 'idempotencyKey', message: /is required/ }]],
    ['empty idempotencyKey', { idempotencyKey: '' }, [{ path: 'idempotencyKey', message: /1 to 256/ }]],
    ['idempotencyKey too long', { idempotencyKey: 'k'.repeat(257) }, [{ path: 'idempotencyKey', message: /1 to 256/ }]],
    ['missing document', { document: undefined }, [{ path: 'document', message: /is required/ }]],
    ['document not an object', { document: [] }, [{ path: 'document', message: /must be an object, not an array/ }]],
    ['unknown top-level field', { priority: 'high' }, [{ path: 'priority', message: /not an allowed field/ }]],
    [
      'expiresInMs too short',
      { expiresInMs: 9_999 },
      [{ path: 'expiresInMs', message: /between 10000 and 2592000000/ }],
    ],
    ['expiresInMs too long', { expiresInMs: 2_592_000_001 }, [{ path: 'expiresInMs', message: /between/ }]],
    ['expiresInMs as a string', { expiresInMs: '60000' }, [{ path: 'expiresInMs', message: /integer, not a string/ }]],
    ['expiresInMs fractional', { expiresInMs: 10_000.5 }, [{ path: 'expiresInMs', message: /integer/ }]],
    ['maxAttempts 0', { maxAttempts: 0 }, [{ path: 'maxAttempts', message: /between 1 and 10/ }]],
    ['maxAttempts 11', { maxAttempts: 11 }, [{ path: 'maxAttempts', message: /between 1 and 10/ }]],
    ['metadata an array', { metadata: ['a'] }, [{ path: 'metadata', message: /must be an object/ }]],
    [
      'metadata with 33 entries',
      { metadata: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v'])) },
      [{ path: 'metadata', message: /at most 32 entries/ }],
    ],
    [
      'metadata key too long',
      { metadata: { ['k'.repeat(65)]: 'v' } },
      [{ path: `metadata.${'k'.repeat(65)}`, message: /^key must be 1 to 64/ }],
    ],
    ['metadata empty key', { metadata: { '': 'v' } }, [{ path: 'metadata.', message: /^key must be 1 to 64/ }]],
    [
      'metadata value too long',
      { metadata: { note: 'v'.repeat(1001) } },
      [{ path: 'metadata.note', message: /at most 1000/ }],
    ],
    [
      'metadata value not a string',
      { metadata: { table: 12 } },
      [{ path: 'metadata.table', message: /must be a string, not a number/ }],
    ],
    [
      'idempotencyKey with half a character',
      { idempotencyKey: 'order-\ud800' },
      [{ path: 'idempotencyKey', message: /well-formed Unicode \(it has a lone surrogate/ }],
    ],
    [
      'printerId with half a character',
      { printerId: '\udc00demo' },
      [{ path: 'printerId', message: /well-formed Unicode/ }],
    ],
    [
      'metadata key with half a character',
      { metadata: { 'table\ud83d': '4' } },
      [{ path: 'metadata.table\ud83d', message: /^key must be well-formed Unicode/ }],
    ],
    [
      'metadata value with half a character',
      { metadata: { table: '4\ude00' } },
      [{ path: 'metadata.table', message: /well-formed Unicode/ }],
    ],
    [
      'text with half a character',
      { document: { width: 80, sections: [{ type: 'text', value: 'Caf\u00e9 \ud83c' }] } },
      [{ path: 'document.sections[0].value', message: /well-formed Unicode/ }],
    ],
    [
      'several problems at once',
      {
        printerId: '',
        document: {
          width: 72,
          sections: [
            { type: 'text' },
            { type: 'feed', lines: 0 },
            { type: 'barcode', format: 'ean13', value: '4006381333932' },
          ],
        },
      },
      [
        { path: 'printerId', message: /1 to 256/ },
        { path: 'document.width', message: /one of 58, 80/ },
        { path: 'document.sections[0].value', message: /is required/ },
        { path: 'document.sections[1].lines', message: /between 1 and 255/ },
        { path: 'document.sections[2].value', message: /check digit/ },
      ],
    ],
  ]
  for (const [name, overrides, expected] of cases) {
    test(name, async () => {
      const before = jobCount()
      const body = JSON.parse(JSON.stringify(jobBody(overrides)))
      const error = await expectRefused(await t.request('POST', jobsPath(), { body }), 400, 'invalid_request')
      expect(error.details).toHaveLength(expected.length)
      expected.forEach((want, i) => {
        expect(error.details[i].path).toBe(want.path)
        expect(error.details[i].message).toMatch(want.message)
      })
      expect(jobCount()).toBe(before)
    })
  }

  test(
    'idempotency keys are compared as sent: two keys that differ only in half ' +
      'a character are both refused, never one job; a whole emoji is a key ' +
      'like any other',
    async () => {
      const before = jobCount()
      for (const key of ['order-\ud800', 'order-\ud801', 'order-\udfff']) {
        await expectRefused(
          await t.request('POST', jobsPath(), { body: jobBody({ idempotencyKey: key }) }),
          400,
          'invalid_request',
        )
      }
      expect(jobCount()).toBe(before)
      const first = await t.request('POST', jobsPath(), { body: jobBody({ idempotencyKey: 'order-\ud83d\ude00' }) })
      const second = await t.request('POST', jobsPath(), { body: jobBody({ idempotencyKey: 'order-\ud83d\ude01' }) })
      expect([first.status, second.status]).toEqual([202, 202])
      const [a, b] = [
        ((await first.json()) as { job: { id: string; idempotencyKey: string } }).job,
        ((await second.json()) as { job: { id: string; idempotencyKey: string } }).job,
      ]
      expect(a.id).not.toBe(b.id)
      expect(a.idempotencyKey).toBe('order-😀')
      expect(jobCount()).toBe(before + 2)
    },
  )

  test('a body that is not an object', async () => {
    for (const body of ['[]', '"job"', '42', 'null']) {
      const error = await expectRefused(await t.request('POST', jobsPath(), { body }), 400, 'invalid_request')
      expect(error.details).toEqual([{ path: '', message: expect.stringMatching(/^must be an object/) }])
    }
  })
})

describe('malformed requests', () => {
  test('malformed JSON is 400 invalid_json', async () => {
    for (const body of ['{"printerId": "demo",', '', "{'a': 1}", '{"a":1}}']) {
      await expectRefused(await t.request('POST', jobsPath(), { body }), 400, 'invalid_json')
    }
  })

  test('a body that is not UTF-8 is 400 invalid_json', async () => {
    const response = await fetch(t.url + jobsPath(), {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
      body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    })
    await expectRefused(response, 400, 'invalid_json')
  })

  test('a body that is not application/json is 415', async () => {
    const body = JSON.stringify(jobBody())
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp', '']) {
      const response = await fetch(t.url + jobsPath(), {
        method: 'POST',
        headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': type },
        body,
      })
      await expectRefused(response, 415, 'unsupported_media_type')
    }
    const ok = await fetch(t.url + jobsPath(), {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'Application/JSON; charset=utf-8' },
      body,
    })
    expect(ok.status).toBe(202)
  })

  test('a body over 2 MiB is 413, refused on its declared length', async () => {
    const before = jobCount()
    const big = JSON.stringify(
      jobBody({ document: { width: 80, sections: Array(130).fill({ type: 'text', value: 'x'.repeat(16_384) }) } }),
    )
    expect(big.length).toBeGreaterThan(2_097_152)
    const error = await expectRefused(await t.request('POST', jobsPath(), { body: big }), 413, 'payload_too_large')
    expect(error.message).toBe('The request body must not exceed 2097152 bytes.')
    expect(jobCount()).toBe(before)
  })

  test('a declared length over 2 MiB is refused before any of the body is sent', async () => {
    const exchange = rawRequest(
      t.hub.port,
      `POST ${jobsPath()} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ` +
        `${t.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ` +
        `2097153\r\n\r\n`,
    )
    const answer = await exchange.response
    expect(answer).toStartWith('HTTP/1.1 413')
    expect(answer).toMatch(/x-request-id: req_/i)
    expect(answer).toMatch(/connection: close/i)
    expect(answer).toContain('"code":"payload_too_large"')
  })

  test('a very large body gets the same answer, in the envelope', async () => {
    const response = await t.request('POST', jobsPath(), { body: 'x'.repeat(9_000_000) })
    await expectRefused(response, 413, 'payload_too_large')
  })

  test('a chunked body is cut off as soon as it passes 2 MiB', async () => {
    // Chunks that never finish: the hub must answer once 2 MiB have passed.
    const exchange = rawRequest(
      t.hub.port,
      `POST ${jobsPath()} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ` +
        `${t.apiKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: ` +
        `chunked\r\n\r\n`,
    )
    const chunk = 'x'.repeat(65_536)
    for (let i = 0; i < 40; i++) exchange.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`)
    const answer = await exchange.response
    expect(answer).toStartWith('HTTP/1.1 413')
    expect(answer).toContain('"code":"payload_too_large"')
  })

  test('a valid document whose delivery frame would pass 2 MiB is 413', async () => {
    const before = jobCount()
    const image = { type: 'image', mediaType: 'image/png', data: pngOfSize(1_040_000) }
    const body = jobBody({ document: { width: 80, sections: [image] } })
    // Fill with a second image up to just under the body limit (a document's text is bounded far
    // below that), then with text to the byte: the body fits, the frame around it cannot.
    const sections = (body.document as { sections: unknown[] }).sections
    const room = 2_097_152 - 100 - JSON.stringify(body).length - 2_000
    sections.push({ type: 'image', mediaType: 'image/png', data: pngOfSize(Math.floor((room * 3) / 4)) })
    const filler = { type: 'text', value: '' }
    sections.push(filler)
    filler.value = 'y'.repeat(2_097_152 - 100 - JSON.stringify(body).length)
    const text = JSON.stringify(body)
    expect(text.length).toBeLessThanOrEqual(2_097_152)
    expect(text.length).toBeGreaterThan(2_097_152 - 500)
    const error = await expectRefused(await t.request('POST', jobsPath(), { body: text }), 413, 'payload_too_large')
    expect(error.message).toContain('one 2097152-byte delivery frame')
    expect(jobCount()).toBe(before)
  })

  test('a bad body never changes an existing job', async () => {
    const body = jobBody({ idempotencyKey: 'stable' })
    const created = await (await t.request('POST', jobsPath(), { body })).json()
    await t.request('POST', jobsPath(), { body: { ...body, document: { width: 72, sections: [] } } })
    const again = await (await t.request('POST', jobsPath(), { body })).json()
    expect(again.job).toEqual(created.job)
  })
})
