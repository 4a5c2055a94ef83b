// A small job must not cost the hub and the printer more than a receipt ever does, against a real
// hub: 256 black images of 576 × 2,048 pixels are a 77 KB request but 300 megapixels to decode and
// 70 m of paper. The document's cost is added up from its sections (image headers only, nothing
// decoded) and a document over a limit is refused with 400 invalid_request naming it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { documentCost } from '../../src/protocol/document-cost.ts'
import { DOCUMENT_COST_LIMITS } from '../../src/protocol/limits.ts'
import { jobCount } from '../support/fixtures.ts'
import { jobBody, startTestHub, type TestHub } from '../support/hub.ts'
import { blackPng, PNG_1X1 } from '../support/images.ts'

let t: TestHub
beforeAll(async () => {
  t = await startTestHub({ offline: true })
})
afterAll(() => t.stop())

const post = (sections: unknown[]) =>
  t.request('POST', `/v1/projects/${t.projectId}/jobs`, { body: jobBody({ document: { width: 80, sections } }) })

async function refused(sections: unknown[]): Promise<{ path: string; message: string }[]> {
  const before = jobCount(t.hub.store)
  const response = await post(sections)
  expect(response.status).toBe(400)
  const { error } = (await response.json()) as { error: { code: string; details: { path: string; message: string }[] } }
  expect(error.code).toBe('invalid_request')
  expect(jobCount(t.hub.store)).toBe(before)
  return error.details
}

describe('a document over a cost limit is refused, naming the limit', () => {
  test('256 black images of 576 × 2,048 pixels: their pixels and their rows', async () => {
    const image = { type: 'image', mediaType: 'image/png', data: blackPng(576, 2048) }
    const sections = Array.from({ length: 256 }, () => image)
    expect(JSON.stringify(sections).length).toBeLessThan(100_000)
    const details = await refused(sections)
    expect(details).toEqual([
      {
        path: 'document',
        message:
          'has 301,989,888 pixels of images in all; a document may have at most ' +
          '4,194,304 (the document cost limit imagePixels)',
      },
      {
        path: 'document',
        message:
          'has 524,288 rows of images in all; a document may have at most 16,384 (the document cost limit imageRows)',
      },
    ])
  })

  test('text, codes and feed', async () => {
    const text = { type: 'text', value: 'x'.repeat(16_384) }
    expect(await refused(Array.from({ length: 5 }, () => text))).toEqual([
      {
        path: 'document',
        message: expect.stringContaining('81,920 characters of text in all; a document may have at most 65,536'),
      },
    ])
    const qr = { type: 'qr', value: 'https://example.com/' }
    expect(await refused(Array.from({ length: DOCUMENT_COST_LIMITS.codes + 1 }, () => qr))).toEqual([
      { path: 'document', message: expect.stringContaining('(the document cost limit codes)') },
    ])
    const feed = { type: 'feed', lines: 255 }
    expect(await refused(Array.from({ length: 5 }, () => feed))).toEqual([
      { path: 'document', message: expect.stringContaining('1,275 lines of feed') },
    ])
  })

  test('a section that is invalid itself is named first, the cost after it is fixed', async () => {
    const details = await refused([
      { type: 'feed', lines: 0 },
      ...Array.from({ length: 5 }, () => ({ type: 'feed', lines: 255 })),
    ])
    expect(details).toEqual([
      { path: 'document.sections[0].lines', message: expect.stringContaining('between 1 and 255') },
    ])
  })
})

test('a real receipt is far below every limit, and is accepted', async () => {
  const sections = [
    { type: 'image', mediaType: 'image/png', data: blackPng(576, 160) },
    { type: 'text', value: 'Café de la Gare', align: 'center', bold: true },
    ...Array.from({ length: 30 }, (_, i) => ({ type: 'row', left: `${i + 1} × Croissant`, right: '2.40' })),
    { type: 'divider' },
    { type: 'qr', value: 'https://example.com/receipt/1234' },
    { type: 'barcode', format: 'ean13', value: '4006381333931' },
    { type: 'image', mediaType: 'image/png', data: PNG_1X1 },
    { type: 'feed', lines: 3 },
    { type: 'cut' },
  ]
  const cost = documentCost({ sections } as Parameters<typeof documentCost>[0])
  for (const name of Object.keys(DOCUMENT_COST_LIMITS) as (keyof typeof DOCUMENT_COST_LIMITS)[])
    expect(cost[name]).toBeLessThan(DOCUMENT_COST_LIMITS[name] / 10)
  expect((await post(sections)).status).toBe(202)
})
