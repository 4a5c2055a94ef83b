// The dashboard's receipt pictures: drawn in a worker (a PNG of the receipt as the printer prints
// it), the same one asked twice at once drawn once, kept within a byte budget, least recently
// shown first out, and a receipt over the time budget refused. The worker also draws a job's
// bytes already rendered for a printer (a CloudPRNT printer that fetches pictures).
import { afterEach, expect, test } from 'bun:test'
import type { PrintDocument } from '../../src/protocol/document.ts'
import { previewFor } from '../../src/preview/preview.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import { renderRequested } from '../../src/render/request.ts'
import { ReceiptImages } from '../../src/workers/receipt-images.ts'
import { blackPng } from '../support/images.ts'

const printer = { profile: 'generic-80mm', width: 80 as const, connection: 'virtual' }
const receipt = (n: number): PrintDocument => ({
  width: 80,
  sections: [
    { type: 'text', value: `Ticket ${n}` },
    { type: 'image', mediaType: 'image/png', data: blackPng(576, 40 * n) },
    { type: 'cut' },
  ],
})
const isPng = (bytes: Uint8Array) => [...bytes.subarray(0, 4)].join() === '137,80,78,71'

let images: ReceiptImages
afterEach(() => images.close())

test('a PNG of the receipt; the same receipt asked twice at once is drawn once and then kept', async () => {
  images = new ReceiptImages()
  const [a, b] = await Promise.all([images.png('job_1', receipt(1), printer), images.png('job_1', receipt(1), printer)])
  expect(isPng(a)).toBe(true)
  expect(b).toBe(a)
  expect(images.keptBytes).toBe(a.length)
  expect(await images.png('job_1', receipt(1), printer)).toBe(a)
})

test('kept within the byte budget, the least recently shown out first', async () => {
  const probe = new ReceiptImages()
  const first = await probe.png('probe', receipt(3), printer)
  probe.close()
  images = new ReceiptImages(first.length * 2.5)
  const one = await images.png('job_1', receipt(3), printer)
  await images.png('job_2', receipt(3), printer)
  // job_1 shown again: job_2 is now the least recently shown.
  expect(await images.png('job_1', receipt(3), printer)).toBe(one)
  await images.png('job_3', receipt(3), printer)
  expect(images.keptBytes).toBeLessThanOrEqual(first.length * 2.5)
  expect(await images.png('job_1', receipt(3), printer)).toBe(one)
  expect(images.keptBytes).toBeLessThanOrEqual(first.length * 2.5)
})

test('over the time budget: refused, nothing kept', async () => {
  images = new ReceiptImages(undefined, 1)
  await expect(
    images.png(
      'job_big',
      { width: 80, sections: [{ type: 'image', mediaType: 'image/png', data: blackPng(2048, 2048) }] },
      printer,
    ),
  ).rejects.toThrow('took longer than 1 ms')
  expect(images.keptBytes).toBe(0)
})

test(
  "a job's bytes already rendered for its printer: the picture that printer " + 'prints, drawn in the worker, not kept',
  async () => {
    images = new ReceiptImages()
    const star = { profile: 'star-tsp143iv', width: 80 as const }
    const bytes = renderRequested({ document: receipt(2), ...star, link: 'cloudprnt' })
    expect(await images.printed(bytes, star)).toEqual(previewFor(bytes, findProfile(star.profile)!, star.width).png())
    expect(images.keptBytes).toBe(0)
  },
)
