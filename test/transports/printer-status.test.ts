import { describe, expect, test } from 'bun:test'
import {
  isStatusByte,
  processIdResponse,
  requestProcessId,
  STATUS_REQUESTS,
  statusProblem,
  transmitRealtimeStatus,
} from '../../src/transports/printer-status.ts'

describe('printer status commands', () => {
  test('DLE EOT n and GS ( H fn 48, byte for byte', () => {
    expect(Array.from(transmitRealtimeStatus(1))).toEqual([0x10, 0x04, 0x01])
    expect(STATUS_REQUESTS.map((request) => Array.from(request))).toEqual([
      [0x10, 0x04, 1],
      [0x10, 0x04, 2],
      [0x10, 0x04, 4],
    ])
    expect(Array.from(requestProcessId(Uint8Array.of(0x30, 0x30, 0x34, 0x32)))).toEqual([
      0x1d, 0x28, 0x48, 6, 0, 48, 48, 0x30, 0x30, 0x34, 0x32,
    ])
    expect(Array.from(processIdResponse(Uint8Array.of(0x30, 0x30, 0x34, 0x32)))).toEqual([
      0x37, 0x22, 0x30, 0x30, 0x34, 0x32, 0x00,
    ])
    expect(() => requestProcessId(Uint8Array.of(0x30, 0x30, 0x34))).toThrow(RangeError)
    expect(() => requestProcessId(Uint8Array.of(0x30, 0x30, 0x34, 0x7f))).toThrow(RangeError)
  })

  test('a status byte has bits 1 and 4 set, 0 and 7 clear', () => {
    expect([0x12, 0x1a, 0x32, 0x7e, 0x16].every(isStatusByte)).toBe(true)
    expect([0x00, 0xff, 0x37, 0x22, 0x13, 0x92].some(isStatusByte)).toBe(false)
  })

  test('the answers read as the reason the printer cannot print, paper first', () => {
    const where = '10.0.0.9:9100'
    const problem = (printer: number, cause: number, paper: number) => statusProblem(printer, cause, paper, where)
    expect(problem(0x12, 0x12, 0x12)).toBeUndefined()
    // Paper near its end still prints.
    expect(problem(0x12, 0x12, 0x1e)).toBeUndefined()
    expect(problem(0x1a, 0x32, 0x7e)).toEqual({
      code: 'printer.paper_out',
      retryable: true,
      message: 'The printer at 10.0.0.9:9100 is out of paper.',
    })
    expect(problem(0x12, 0x12, 0x72)?.code).toBe('printer.paper_out')
    expect(problem(0x1a, 0x16, 0x12)).toEqual({
      code: 'printer.cover_open',
      retryable: true,
      message: 'The printer at 10.0.0.9:9100 has its cover open.',
    })
    expect(problem(0x1a, 0x52, 0x12)?.code).toBe('printer.error')
    expect(problem(0x1a, 0x12, 0x12)).toEqual({
      code: 'printer.offline',
      retryable: true,
      message: 'The printer at 10.0.0.9:9100 is offline.',
    })
  })
})
