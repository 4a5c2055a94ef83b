// USB printers: through a usblp device file (a pseudo-terminal stands in for /dev/usb/lp0: both are
// files the kernel reads and writes), and through bulk endpoints for a printer without usblp, with
// a device in memory in place of the USB subsystem, which these machines do not have.
import { afterEach, describe, expect, test } from 'bun:test'
import { PrinterEmulator } from '../../src/emulator/emulator.ts'
import { processIdResponse, realtimeStatus, type PrinterState } from '../../src/emulator/epson-replies.ts'
import { RequestScanner } from '../../src/emulator/request-scanner.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import { parseConnectionUri, type Connection } from '../../src/domain/connection-uri.ts'
import { DeviceFinder } from '../../src/transports/devices.ts'
import { submit, type Transports } from '../../src/transports/submit.ts'
import { printerInterface, type UsbBackend, type UsbDevice } from '../../src/transports/usb-bulk.ts'
import { VirtualPrinters } from '../../src/transports/virtual.ts'
import { waitFor } from '../support/wait.ts'
import { confinementOf } from '../../src/transports/confine.ts'
import { tmpdir } from 'node:os'

const EPSON = { profile: 'epson-tm-t20iii', width: 80 as const }
const GENERIC = { profile: 'generic-80mm', width: 80 as const }
const bytes = Uint8Array.from([0x1b, 0x40, ...new TextEncoder().encode('USB receipt\n'), 0x1d, 0x56, 0x00])

function connection(uri: string): Connection {
  const parsed = parseConnectionUri(uri)
  if (!parsed.ok) throw new Error(parsed.message)
  return parsed.connection
}

const running: PrinterEmulator[] = []
afterEach(() => {
  for (const emulator of running.splice(0)) emulator.stop()
})

describe('usblp device file', () => {
  const transports = (usb?: () => Promise<UsbBackend>): Transports => ({
    virtuals: new VirtualPrinters(),
    devices: new DeviceFinder(),
    usb,
    confinement: confinementOf(tmpdir()),
  })

  test('a printer that answers: status before, byte for byte, confirmed', async () => {
    const emulator = PrinterEmulator.serial({ profile: findProfile('epson-tm-t20iii')!, width: 80 })
    running.push(emulator)
    const outcome = await submit(connection(`usb://${emulator.serialPath}`), bytes, new AbortController().signal, {
      transports: transports(),
      model: EPSON,
    })
    if (!outcome.ok) throw new Error('the job was not sent')
    expect(await outcome.printed).toEqual({ ok: true })
    expect((await waitFor(() => emulator.receipts[0])).bytes).toEqual(bytes)
  })

  test('a model that is not asked: the job is written and the device closed once it is out', async () => {
    const emulator = PrinterEmulator.serial({ profile: findProfile('generic-80mm')!, width: 80 })
    running.push(emulator)
    expect(
      await submit(connection(`usb://${emulator.serialPath}`), bytes, new AbortController().signal, {
        transports: transports(),
        model: GENERIC,
      }),
    ).toEqual({ ok: true })
    expect((await waitFor(() => emulator.receipts[0])).bytes).toEqual(bytes)
  })

  test('no device: printer.unreachable, retryable', async () => {
    const outcome = await submit(connection('usb:///dev/usb/lp9'), bytes, new AbortController().signal, {
      transports: transports(),
      model: GENERIC,
    })
    expect(outcome).toMatchObject({ ok: false, failure: { code: 'printer.unreachable', retryable: true } })
  })
})

/** A USB printer in memory: a printer-class interface with bulk OUT 1 and IN 2, answering as an Epson printer. */
function usbPrinter(
  identity: { vendorId: number; productId: number; serialNumber: string },
  state: PrinterState = { paper: 'ok', coverOpen: false, error: false, offline: false },
) {
  const received: number[] = []
  const scanner = new RequestScanner()
  const answers: number[] = []
  let wake: (() => void) | undefined
  const calls: string[] = []
  const device: UsbDevice = {
    ...identity,
    opened: false,
    configuration: {
      interfaces: [
        {
          interfaceNumber: 0,
          alternate: { interfaceClass: 0xff, endpoints: [{ endpointNumber: 5, direction: 'out', type: 'bulk' }] },
        },
        {
          interfaceNumber: 1,
          alternate: {
            interfaceClass: 7,
            endpoints: [
              { endpointNumber: 1, direction: 'out', type: 'bulk' },
              { endpointNumber: 2, direction: 'in', type: 'bulk' },
            ],
          },
        },
      ],
    },
    async open() {
      calls.push('open')
      device.opened = true
    },
    async close() {
      calls.push('close')
      device.opened = false
      wake?.()
    },
    async selectConfiguration() {},
    async claimInterface(n) {
      calls.push(`claim ${n}`)
    },
    async releaseInterface(n) {
      calls.push(`release ${n}`)
    },
    async transferOut(endpoint, data) {
      expect(endpoint).toBe(1)
      const { requests, data: job } = scanner.scan(data)
      received.push(...job)
      for (const request of requests) {
        if (request.kind === 'status') answers.push(realtimeStatus(request.n, state)!)
        else answers.push(...processIdResponse(request.id))
      }
      wake?.()
      return { bytesWritten: data.length, status: 'ok' }
    },
    async transferIn(endpoint, length) {
      expect(endpoint).toBe(2)
      while (answers.length === 0) {
        if (!device.opened) throw new Error('device closed')
        await new Promise<void>((resolve) => (wake = resolve))
      }
      return { data: new DataView(Uint8Array.from(answers.splice(0, length)).buffer), status: 'ok' }
    },
  }
  return { device, received, calls }
}

describe('bulk endpoints (usb 3.x), for a printer without usblp', () => {
  const noUsblp = new DeviceFinder({ sys: '/nonexistent', dev: '/nonexistent' })
  const transports = (devices: UsbDevice[]): Transports => ({
    virtuals: new VirtualPrinters(),
    devices: noUsblp,
    usb: async () => ({ getDevices: async () => devices }),
    confinement: confinementOf(tmpdir()),
  })

  test('the printer interface and its bulk endpoints are found', () => {
    const { device } = usbPrinter({ vendorId: 0x04b8, productId: 0x0e28, serialNumber: 'X1' })
    expect(printerInterface(device)).toEqual({ interfaceNumber: 1, out: 1, in: 2 })
    expect(printerInterface({ ...device, configuration: { interfaces: [] } })).toBeUndefined()
  })

  test('by vendor, product and serial: status, the job byte for byte, confirmed; the interface released', async () => {
    const other = usbPrinter({ vendorId: 0x04b8, productId: 0x0e28, serialNumber: 'OTHER' })
    const printer = usbPrinter({ vendorId: 0x04b8, productId: 0x0e28, serialNumber: 'X1' })
    const outcome = await submit(connection('usb://04b8:0e28/X1'), bytes, new AbortController().signal, {
      transports: transports([other.device, printer.device]),
      model: EPSON,
    })
    if (!outcome.ok) throw new Error('the job was not sent')
    expect(await outcome.printed).toEqual({ ok: true })
    expect(printer.received).toEqual(Array.from(bytes))
    expect(other.received).toEqual([])
    await waitFor(() => printer.calls.includes('close'))
    expect(printer.calls).toEqual(['open', 'claim 1', 'release 1', 'close'])
  })

  test('out of paper: no byte of the job', async () => {
    const printer = usbPrinter(
      { vendorId: 0x04b8, productId: 0x0e28, serialNumber: 'X1' },
      { paper: 'out', coverOpen: false, error: false, offline: false },
    )
    const outcome = await submit(connection('usb://04b8:0e28'), bytes, new AbortController().signal, {
      transports: transports([printer.device]),
      model: EPSON,
    })
    expect(outcome).toMatchObject({ ok: false, failure: { code: 'printer.paper_out', retryable: true } })
    expect(printer.received).toEqual([])
  })

  test('not plugged in: printer.unreachable, retryable, naming the device', async () => {
    const outcome = await submit(connection('usb://0519:0003/ABC'), bytes, new AbortController().signal, {
      transports: transports([]),
      model: GENERIC,
    })
    expect(outcome).toEqual({
      ok: false,
      failure: {
        code: 'printer.unreachable',
        message: 'No USB printer 0519:0003 with serial ABC is plugged in.',
        retryable: true,
      },
    })
  })

  test('unplugged mid-job: printer.unreachable, retryable, and the device let go', async () => {
    const printer = usbPrinter({ vendorId: 0x04b8, productId: 0x0e28, serialNumber: 'X1' })
    printer.device.transferOut = async () => Promise.reject(new Error('LIBUSB_ERROR_NO_DEVICE'))
    const outcome = await submit(connection('usb://04b8:0e28'), bytes, new AbortController().signal, {
      transports: transports([printer.device]),
      model: GENERIC,
    })
    expect(outcome).toEqual({
      ok: false,
      failure: {
        code: 'printer.unreachable',
        message: 'The printer at 04b8:0e28 went away (LIBUSB_ERROR_NO_DEVICE).',
        retryable: true,
      },
    })
    await waitFor(() => printer.calls.includes('close'))
    expect(printer.calls).toEqual(['open', 'claim 1', 'release 1', 'close'])
  })

  test('a device that is not a printer is refused, not retried', async () => {
    const { device } = usbPrinter({ vendorId: 0x1234, productId: 0x5678, serialNumber: 'Z' })
    const outcome = await submit(connection('usb://1234:5678'), bytes, new AbortController().signal, {
      transports: transports([{ ...device, configuration: { interfaces: [] } }]),
      model: GENERIC,
    })
    expect(outcome).toEqual({
      ok: false,
      failure: {
        code: 'printer.unreachable',
        message: 'The USB device 1234:5678 has no printer interface.',
        retryable: false,
      },
    })
  })
})
