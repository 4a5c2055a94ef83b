// Rendering off the event loop: a receipt without images renders at once; a document with images
// renders in the render worker, to the same bytes, while the event loop goes on; its errors keep
// their codes; a render over its time budget fails as render.failed and the next one works.
import { afterAll, describe, expect, test } from 'bun:test'
import type { PrintDocument } from '../../src/protocol/document.ts'
import { isLight, renderOffThread, renderWorker } from '../../src/render/off-thread.ts'
import { render, RenderError, targetFor } from '../../src/render/render.ts'
import { blackPng } from '../support/images.ts'

const light: PrintDocument = {
  width: 80,
  sections: [{ type: 'text', value: 'Table 4' }, { type: 'qr', value: 'https://example.com' }, { type: 'cut' }],
}
const heavy: PrintDocument = {
  width: 80,
  sections: [
    { type: 'text', value: 'Photo' },
    { type: 'image', mediaType: 'image/png', data: blackPng(2048, 2048) },
    { type: 'cut' },
  ],
}
const request = (document: PrintDocument, profile = 'epson-tm-t20iii') => ({ document, profile, width: 80 as const })

const pool = renderWorker(1)
afterAll(() => pool.close())

describe('where a document renders', () => {
  test('a receipt without images at once; a document with an image in the worker, to the same bytes', async () => {
    expect(isLight(light)).toBe(true)
    expect(isLight(heavy)).toBe(false)
    expect(await renderOffThread(request(light))).toEqual(render(light, targetFor('epson-tm-t20iii', 80)))
    expect(await renderOffThread(request(heavy))).toEqual(render(heavy, targetFor('epson-tm-t20iii', 80)))
  })

  test('while the worker renders, the event loop goes on', async () => {
    const order: string[] = []
    const rendering = renderOffThread(request(heavy)).then(() => order.push('rendered'))
    setTimeout(() => order.push('timer'), 0)
    await rendering
    expect(order).toEqual(['timer', 'rendered'])
  })

  test("the worker's errors keep their code", async () => {
    const error = await renderOffThread(request(heavy, 'no-such-model')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RenderError)
    expect(error).toMatchObject({ code: 'render.profile_unknown', retryable: false })
  })

  test('over its time budget: render.failed, the worker ended; the next document renders in a fresh one', async () => {
    const error = await renderOffThread(request(heavy), pool).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RenderError)
    expect(error).toMatchObject({ code: 'render.failed', message: expect.stringContaining('took longer than 1 ms') })
    const generous = renderWorker()
    try {
      expect(await renderOffThread(request(heavy), generous)).toEqual(render(heavy, targetFor('epson-tm-t20iii', 80)))
    } finally {
      generous.close()
    }
  })
})

test('closing the worker refuses the document it was rendering and those waiting', async () => {
  const closing = renderWorker()
  const rendering = renderOffThread(request(heavy), closing).catch((e: unknown) => e)
  const waiting = renderOffThread(request(heavy), closing).catch((e: unknown) => e)
  closing.close()
  for (const outcome of [await rendering, await waiting])
    expect(outcome).toMatchObject({ code: 'render.failed', message: expect.stringContaining('stopped') })
})
