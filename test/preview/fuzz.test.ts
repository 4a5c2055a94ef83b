// Random bytes, biased towards plausible commands of both languages, through the whole preview:
// it never throws, always returns, and a header that claims more data than there is allocates
// nothing for it.
import { describe, expect, test } from 'bun:test'
import { type CommandSetName, decodeReceipt, MAX_WARNINGS, receiptPng, receiptText } from '../../src/preview/preview.ts'
import { bytes, ESC, GS, LF, RS } from './support.ts'

/** mulberry32: a small seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function generator(next: () => number) {
  const int = (max: number) => Math.floor(next() * max)
  const byte = () => int(256)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!
  const run = (length: number, item: () => number) => Array.from({ length }, item)
  const small = () => pick([0, 1, 2, 3, 48, 49, 50, 51, byte()])
  const digits = (length: number) => run(length, () => 0x30 + int(10))
  const printable = (length: number) => run(length, () => (next() < 0.8 ? 0x20 + int(95) : 0x80 + int(128)))
  /** A few bytes of data; sometimes claiming more than follows. */
  const data = (length: number) => run(next() < 0.9 ? length : int(length + 1), byte)

  const pieces: (() => number[])[] = [
    () => printable(1 + int(60)),
    () => [LF],
    () => run(1 + int(8), byte),
    () => [pick([ESC, GS, 0x10, 0x1c]), byte()],
    // ESC/POS
    () => [ESC, 0x40],
    () => [ESC, 0x74, pick([0, 2, 13, 14, 16, 17, 18, 19, byte()])],
    () => [ESC, 0x61, small()],
    () => [ESC, 0x45, small()],
    () => [ESC, 0x21, byte()],
    () => [ESC, 0x64, int(12)],
    () => [GS, 0x56, pick([0, 1, 48, 49, 65, 66, byte()]), int(8)],
    () => [GS, 0x48, small(), GS, 0x68, byte(), GS, 0x77, small()],
    () => {
      const symbology = pick([65, 67, 69, 73, 70, 0, 2, 4, byte()])
      const payload = symbology === 73 ? [0x7b, pick([0x41, 0x42, 0x43]), ...printable(int(20))] : digits(int(16))
      return [GS, 0x6b, symbology, ...(symbology <= 6 ? [...payload, 0] : [payload.length, ...payload])]
    },
    () => {
      const widthBytes = int(80)
      const height = int(64)
      return [GS, 0x76, 0x30, small(), widthBytes & 0xff, widthBytes >> 8, height, 0, ...data(widthBytes * height)]
    },
    () => {
      const payload = data(int(120))
      const fn = pick([65, 67, 69, 80, 81, 82, byte()])
      const parameters = fn === 80 ? [48, ...payload] : [pick([48, 49, 50, 51, 6, byte()])]
      const length = parameters.length + 2
      return [GS, 0x28, 0x6b, length & 0xff, length >> 8, pick([49, 49, 49, 48]), fn, ...parameters]
    },
    () => [GS, 0x28, 0x6b, byte(), byte(), 49, 80, 48, ...data(32)],
    () => [ESC, 0x70, 0, 25, 250, 0x10, 0x04, 1, ESC, 0x33, byte()],
    // StarPRNT
    () => [ESC, GS, 0x74, pick([0, 1, 4, 5, 10, 12, 15, 32, byte()])],
    () => [ESC, GS, 0x61, small()],
    () => [ESC, pick([0x45, 0x46])],
    () => [ESC, 0x61, int(12), ESC, 0x64, small()],
    () => [ESC, GS, 0x79, 0x53, pick([0x30, 0x31, 0x32]), small()],
    () => {
      const payload = data(int(120))
      return [ESC, GS, 0x79, 0x44, 0x31, 0, payload.length & 0xff, payload.length >> 8, ...payload, ESC, GS, 0x79, 0x50]
    },
    () => [
      ESC,
      0x62,
      pick([1, 3, 4, 6, 5, byte()]),
      small(),
      small(),
      byte(),
      ...(next() < 0.5 ? digits(int(14)) : printable(int(20))),
      ...(next() < 0.9 ? [RS] : []),
    ],
    () => {
      const widthBytes = int(80)
      const height = int(64)
      return [
        ESC,
        GS,
        0x53,
        pick([1, 1, 1, byte()]),
        widthBytes,
        0,
        height,
        0,
        pick([0, 0, 0, byte()]),
        ...data(widthBytes * height),
      ]
    },
  ]

  return (): Uint8Array => {
    // Lengths from 0 to 4096, more of them short: the PNG of a long one is what takes the time.
    const length = Math.floor(4097 * next() ** 3)
    const out: number[] = []
    while (out.length < length) out.push(...pick(pieces)())
    return Uint8Array.from(out.slice(0, length))
  }
}

const CASES = 2_000
const SEED = 20_240_611

describe('fuzz', () => {
  test(`${CASES} random inputs decode, print as text and draw, in both command languages`, { timeout: 60_000 }, () => {
    const next = random(SEED)
    const input = generator(next)
    const commandSets: CommandSetName[] = ['escpos', 'starprnt']
    for (let i = 0; i < CASES; i++) {
      const bytes = input()
      const commandSet = commandSets[i % 2]!
      const dotsPerLine = i % 4 < 2 ? 384 : 576
      let stage = 'decodeReceipt'
      try {
        const receipt = decodeReceipt(bytes, { dotsPerLine, commandSet })
        expect(receipt.warnings.length).toBeLessThanOrEqual(MAX_WARNINGS + 1)
        stage = 'receiptText'
        expect(Array.isArray(receiptText(receipt, dotsPerLine / 12))).toBe(true)
        stage = 'receiptPng'
        // The width from the PNG's header: decoding 2,000 pictures would double the test's time.
        expect(new DataView(receiptPng(receipt, dotsPerLine).buffer).getUint32(16)).toBe(dotsPerLine)
      } catch (error) {
        throw new Error(`case ${i} (seed ${SEED}, ${commandSet}, ${bytes.length} bytes) failed in ${stage}: ${error}`)
      }
    }
  })

  test('headers that claim far more data than follows allocate nothing for it', () => {
    const claims = [
      bytes(GS, 'v', '0', 3, 0xff, 0xff, 0xff, 0xff, 1, 2, 3), // 65535 x 65535 bytes, at quadruple size
      bytes(ESC, GS, 'S', 1, 0xff, 0xff, 0xff, 0xff, 0, 1, 2, 3),
      bytes(GS, '(', 'k', 0xff, 0xff, 49, 80, 48, 'abc'),
      bytes(ESC, GS, 'y', 'D', '1', 0, 0xff, 0xff, 'abc'),
      bytes(GS, '8', 'L', 0xff, 0xff, 0xff, 0xff, 48, 112),
      bytes(GS, 'k', 73, 255, '{B'),
      bytes(ESC, 'b', 6, 2, 2, 80, 'no record separator'),
    ]
    const before = process.memoryUsage().rss
    for (const claim of claims) {
      for (const commandSet of ['escpos', 'starprnt'] as const) {
        const receipt = decodeReceipt(claim, { dotsPerLine: 576, commandSet })
        expect(receipt.blocks.filter((block) => block.kind !== 'text')).toEqual([])
        receiptPng(receipt, 576)
      }
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024)
  })

  test('a stream of garbage keeps a bounded list of warnings', () => {
    const receipt = decodeReceipt(new Uint8Array(10_000).fill(0x07), { dotsPerLine: 576, commandSet: 'escpos' })
    expect(receipt.warnings).toHaveLength(MAX_WARNINGS + 1)
    expect(receipt.warnings.at(-1)).toBe(`${10_000 - MAX_WARNINGS} more warnings left out`)
  })
})
