import { describe, expect, test } from 'bun:test'
import { MAX_QR_BYTES } from '../../src/protocol/limits.ts'
import { qrModuleDots, qrVersionM } from '../../src/render/qr.ts'

describe('QR sizing', () => {
  test('the smallest version holding the bytes in byte mode at level M', () => {
    expect(qrVersionM(1)).toBe(1)
    expect(qrVersionM(14)).toBe(1)
    expect(qrVersionM(15)).toBe(2)
    expect(qrVersionM(213)).toBe(10)
    expect(qrVersionM(214)).toBe(11)
    expect(qrVersionM(MAX_QR_BYTES)).toBe(40)
    expect(qrVersionM(MAX_QR_BYTES + 1)).toBeUndefined()
  })

  test('module size: the symbol fits the line, at most 8 dots, at least 1', () => {
    expect(qrModuleDots(1, 384)).toBe(8)
    expect(qrModuleDots(5, 384)).toBe(8) // 37 modules: 10 dots would fit
    expect(qrModuleDots(10, 384)).toBe(6) // 57 modules
    expect(qrModuleDots(40, 384)).toBe(2) // 177 modules
    expect(qrModuleDots(40, 576)).toBe(3)
    expect(qrModuleDots(40, 100)).toBe(1)
  })
})
