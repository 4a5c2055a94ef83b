// The render part of `bun run bench`: the ESC/POS renderer alone, in this process (it is pure
// computation): a typical 40-line receipt with a QR code, and a 576 x 1000 photo as JPEG and PNG.
import { encode as encodePng } from 'fast-png'
import { encode as encodeJpeg } from 'jpeg-js'
import type { PrintDocument, Section } from '../src/protocol/document.ts'
import { render, targetFor } from '../src/render/render.ts'
import type { SectionResult } from './bench.ts'

export interface RenderFigures {
  receiptMs: number
  photoJpegMs: number
  photoPngMs: number
}

/** Median time of `runs` calls after `warmup` unmeasured ones. */
function medianMs(runs: number, warmup: number, work: () => unknown): number {
  for (let i = 0; i < warmup; i++) work()
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    work()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(runs / 2)]!
}

/** 40 printed lines: a header, 30 items, dividers, totals, a thank-you, a QR code, and the cut. */
function receipt(): PrintDocument {
  const items: Section[] = Array.from({ length: 30 }, (_, i) => ({
    type: 'row',
    left: `${(i % 3) + 1} x Item number ${i + 1}`,
    right: `${(4.5 + i).toFixed(2)} €`,
  }))
  return {
    width: 80,
    sections: [
      { type: 'text', value: 'Café du Port', align: 'center', bold: true },
      { type: 'text', value: '12 quai des Pêcheurs, Marseille', align: 'center' },
      { type: 'divider' },
      ...items,
      { type: 'divider' },
      { type: 'row', left: 'Total', right: '570.00 €' },
      { type: 'row', left: 'TVA 10 %', right: '51.82 €' },
      { type: 'text', value: 'Merci et à bientôt !', align: 'center' },
      { type: 'qr', value: 'https://example.com/receipt/2026-11-21/0042?sig=Zm9vYmFy' },
      { type: 'feed', lines: 2 },
      { type: 'cut' },
    ],
  }
}

/** A photo-like picture: smooth shading with fine texture, in colour. */
function photoPixels(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 4)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const shade = 128 + 90 * Math.sin(x / 53) * Math.cos(y / 41) + 30 * Math.sin((x * y) / 900)
      const v = Math.max(0, Math.min(255, Math.round(shade)))
      data.set([v, (v + x) & 0xff, (v + y) & 0xff, 255], (y * width + x) * 4)
    }
  }
  return data
}

export function measureRender(): RenderFigures {
  const document = receipt()
  const target = targetFor('generic-80mm', 80)
  const width = 576
  const height = 1_000
  const pixels = photoPixels(width, height)
  const jpeg = Buffer.from(encodeJpeg({ width, height, data: pixels }, 85).data).toString('base64')
  const png = Buffer.from(encodePng({ width, height, data: pixels, channels: 4, depth: 8 })).toString('base64')
  const photo = (mediaType: 'image/jpeg' | 'image/png', data: string): PrintDocument => ({
    width: 80,
    sections: [{ type: 'image', mediaType, data }],
  })
  return {
    receiptMs: medianMs(2_000, 200, () => render(document, target)),
    photoJpegMs: medianMs(15, 3, () => render(photo('image/jpeg', jpeg), target)),
    photoPngMs: medianMs(15, 3, () => render(photo('image/png', png), target)),
  }
}

// ---- Render section ---------------------------------------------------------------------------

const RENDER_TARGETS = { receiptMs: 1, photoMs: 30 } as const

export function renderSection(): SectionResult {
  console.log(
    'render: a 40-line receipt with a QR code (2,000 runs), a 576 x 1000 photo as JPEG and as PNG (15 runs each)...',
  )
  const figures = measureRender()
  const ms = (value: number) => Number(value.toFixed(value < 1 ? 3 : 1))
  return {
    report: [
      'render (in this process, median time of one document to ESC/POS bytes, 80 mm)',
      `40-line receipt with a QR code   ${ms(figures.receiptMs)} ms`,
      `576 x 1000 photo, JPEG          ${ms(figures.photoJpegMs)} ms (decode, scale, dither, raster)`,
      `576 x 1000 photo, PNG           ${ms(figures.photoPngMs)} ms`,
    ],
    checks: [
      {
        name: 'render a 40-line receipt with a QR',
        value: ms(figures.receiptMs),
        unit: ' ms',
        target: `< ${RENDER_TARGETS.receiptMs} ms`,
        pass: figures.receiptMs < RENDER_TARGETS.receiptMs,
      },
      {
        name: 'render a 576x1000 photo (JPEG)',
        value: ms(figures.photoJpegMs),
        unit: ' ms',
        target: `< ${RENDER_TARGETS.photoMs} ms`,
        pass: figures.photoJpegMs < RENDER_TARGETS.photoMs,
      },
      {
        name: 'render a 576x1000 photo (PNG)',
        value: ms(figures.photoPngMs),
        unit: ' ms',
        target: `< ${RENDER_TARGETS.photoMs} ms`,
        pass: figures.photoPngMs < RENDER_TARGETS.photoMs,
      },
    ],
    results: { ...figures, targets: RENDER_TARGETS },
  }
}
