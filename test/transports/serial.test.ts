// Serial printers through real pseudo-terminals: the port's settings as the kernel keeps them, a
// job byte for byte with the printer's status and confirmation, flow control against a slow
// printer with a tiny buffer (and the loss without it), and a printer found again after a replug.
import { afterEach, describe, expect, test } from 'bun:test'
import { closeSync, constants, mkdirSync, openSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type EmulatedReceipt, PrinterEmulator } from '../../src/emulator/emulator.ts'
import type { SerialLineOptions } from '../../src/emulator/serial-line.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import { parseConnectionUri, type Connection } from '../../src/domain/connection-uri.ts'
import { DeviceFinder, listDeviceFiles } from '../../src/transports/devices.ts'
import { ioctl, TCGETS } from '../../src/transports/libc.ts'
import { submit, type Transports } from '../../src/transports/submit.ts'
import { readTermios, TERMIOS_SIZE, termiosFor } from '../../src/transports/termios.ts'
import { VirtualPrinters } from '../../src/transports/virtual.ts'
import { tempDir } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'
import { confinementOf } from '../../src/transports/confine.ts'
import { tmpdir } from 'node:os'

const profile = findProfile('epson-tm-t20iii')!
const EPSON = { profile: 'epson-tm-t20iii', width: 80 as const }
const transports = (): Transports => ({
  virtuals: new VirtualPrinters(),
  devices: new DeviceFinder(),
  confinement: confinementOf(tmpdir()),
})

const running: PrinterEmulator[] = []
afterEach(() => {
  for (const emulator of running.splice(0)) emulator.stop()
})

function serialPrinter(line: SerialLineOptions = {}): PrinterEmulator {
  const emulator = PrinterEmulator.serial({ profile, width: 80, ...line })
  running.push(emulator)
  return emulator
}

function connection(uri: string): Connection {
  const parsed = parseConnectionUri(uri)
  if (!parsed.ok) throw new Error(parsed.message)
  return parsed.connection
}

/** A job of `lines` lines of text: ESC @, the lines, a cut. */
function job(lines: number): Uint8Array {
  const text = Array.from(
    { length: lines },
    (_, i) => `Line ${String(i + 1).padStart(3, '0')}: 2 x Espresso      5.00\n`,
  ).join('')
  return Uint8Array.from([0x1b, 0x40, ...new TextEncoder().encode(text), 0x1d, 0x56, 0x00])
}

async function printed(emulator: PrinterEmulator, count = 1): Promise<EmulatedReceipt> {
  return waitFor(() => emulator.receipts.length >= count && emulator.receipts[count - 1], 20_000)
}

describe('serial port settings', () => {
  test('termios for each setting, in the kernel layout', () => {
    const view = (bytes: Uint8Array) => new DataView(bytes.buffer)
    const rtscts = termiosFor({ baud: 9600, flow: 'rtscts', bits: 8, parity: 'none', stop: 1 })
    // B9600 | CS8 | CREAD | CLOCAL | CRTSCTS; no input or output processing, no echo.
    expect(view(rtscts).getUint32(8, true)).toBe((0o15 | 0o60 | 0o200 | 0o4000 | 0o20000000000) >>> 0)
    expect([
      view(rtscts).getUint32(0, true),
      view(rtscts).getUint32(4, true),
      view(rtscts).getUint32(12, true),
    ]).toEqual([0, 0, 0])
    const xon = termiosFor({ baud: 115200, flow: 'xonxoff', bits: 7, parity: 'odd', stop: 2 })
    expect(view(xon).getUint32(0, true)).toBe(0o2000 | 0o10000)
    expect(view(xon).getUint32(8, true)).toBe(0o10002 | 0o40 | 0o100 | 0o200 | 0o400 | 0o1000 | 0o4000)
    // XON and XOFF named: a zero control character would mean "disabled".
    expect([xon[17 + 8], xon[17 + 9]]).toEqual([0x11, 0x13])
    expect(readTermios(xon)).toEqual({ baud: 115200, flow: 'xonxoff', raw: true })
    expect(() => termiosFor({ baud: 1234, flow: 'none', bits: 8, parity: 'none', stop: 1 })).toThrow(RangeError)
  })

  test('the transport sets the port raw, at its speed and flow control, as the kernel then reports it', async () => {
    const emulator = serialPrinter()
    expect(
      await submit(
        connection(`serial://${emulator.serialPath}?baud=19200&flow=xonxoff`),
        job(1),
        new AbortController().signal,
        { transports: transports(), model: { profile: 'generic-80mm', width: 80 } },
      ),
    ).toEqual({ ok: true })
    const fd = openSync(emulator.serialPath, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK)
    const termios = new Uint8Array(TERMIOS_SIZE)
    ioctl(fd, TCGETS, termios, 'TCGETS')
    closeSync(fd)
    expect(readTermios(termios)).toEqual({ baud: 19200, flow: 'xonxoff', raw: true })
  })
})

describe('printing on a serial printer', () => {
  test('status before, the job byte for byte, the printer confirms it printed', async () => {
    const emulator = serialPrinter()
    const bytes = job(20)
    const outcome = await submit(
      connection(`serial://${emulator.serialPath}?baud=115200`),
      bytes,
      new AbortController().signal,
      { transports: transports(), model: EPSON },
    )
    if (!outcome.ok) throw new Error('the job was not sent')
    expect(outcome.printed).toBeDefined()
    expect(await outcome.printed).toEqual({ ok: true })
    const receipt = await printed(emulator)
    expect(receipt.bytes).toEqual(bytes)
    expect(receipt.lost).toBe(0)
    expect(receipt.preview.text).toContain('Line 020: 2 x Espresso      5.00')
  })

  test('out of paper: not a byte of the job, a retryable printer.paper_out', async () => {
    const emulator = serialPrinter()
    emulator.set({ paper: 'out' })
    const outcome = await submit(connection(`serial://${emulator.serialPath}`), job(3), new AbortController().signal, {
      transports: transports(),
      model: EPSON,
    })
    expect(outcome).toMatchObject({ ok: false, failure: { code: 'printer.paper_out', retryable: true } })
    emulator.stop()
    expect(emulator.receipts).toEqual([])
  })

  test('no port: printer.unreachable, retryable, in plain words', async () => {
    const outcome = await submit(connection('serial:///dev/ttyUSB97'), job(1), new AbortController().signal, {
      transports: transports(),
      model: EPSON,
    })
    expect(outcome).toEqual({
      ok: false,
      failure: {
        code: 'printer.unreachable',
        message: 'There is no printer at /dev/ttyUSB97 (unplugged or switched off?).',
        retryable: true,
      },
    })
  })
})

describe('flow control: 9,600 baud, a 45-byte buffer printed at 300 bytes a second', () => {
  const slow = { baud: 9600, buffer: 45, printRate: 300 }
  const bytes = job(12)

  async function send(line: SerialLineOptions, hostFlow: string): Promise<EmulatedReceipt> {
    const emulator = serialPrinter({ ...slow, ...line })
    // A generic profile: no status requests, only the job on the line.
    expect(
      await submit(
        connection(`serial://${emulator.serialPath}?baud=9600&flow=${hostFlow}`),
        bytes,
        new AbortController().signal,
        { transports: transports(), model: { profile: 'generic-80mm', width: 80 } },
      ),
    ).toEqual({ ok: true })
    return printed(emulator)
  }

  test('RTS/CTS: no byte lost', async () => {
    const receipt = await send({ flow: 'rtscts' }, 'rtscts')
    expect(receipt.lost).toBe(0)
    expect(receipt.bytes).toEqual(bytes)
  }, 30_000)

  test('XON/XOFF: no byte lost', async () => {
    const receipt = await send({ flow: 'xonxoff' }, 'xonxoff')
    expect(receipt.lost).toBe(0)
    expect(receipt.bytes).toEqual(bytes)
  }, 30_000)

  test('a host that ignores the printer: the emulator shows the bytes lost', async () => {
    const receipt = await send({ flow: 'rtscts' }, 'none')
    expect(receipt.lost).toBeGreaterThan(bytes.length / 2)
    expect(receipt.bytes.length + receipt.lost).toBe(bytes.length)
  }, 30_000)
})

describe('replug', () => {
  /**
   * A stand-in sysfs with a USB serial adapter (FTDI 0403:6001, serial A1B2) at `name`, its device file a link to
   * `target`.
   */
  function plug(root: string, name: string, target: string): void {
    const device = join(root, 'sys/devices/pci0000:00/usb1/1-1')
    const port = join(device, '1-1:1.0', name)
    mkdirSync(port, { recursive: true })
    writeFileSync(join(device, 'idVendor'), '0403\n')
    writeFileSync(join(device, 'idProduct'), '6001\n')
    writeFileSync(join(device, 'serial'), 'A1B2\n')
    mkdirSync(join(root, 'sys/class/tty', name), { recursive: true })
    symlinkSync(port, join(root, 'sys/class/tty', name, 'device'))
    mkdirSync(join(root, 'dev'), { recursive: true })
    symlinkSync(target, join(root, 'dev', name))
  }

  function unplug(root: string, name: string): void {
    rmSync(join(root, 'sys/class/tty', name), { recursive: true })
    rmSync(join(root, 'sys/devices/pci0000:00/usb1/1-1/1-1:1.0', name), { recursive: true })
    rmSync(join(root, 'dev', name))
  }

  test('the port comes back under another name: printing resumes there', async () => {
    const root = tempDir()
    try {
      const t: Transports = {
        virtuals: new VirtualPrinters(),
        devices: new DeviceFinder({ sys: join(root, 'sys'), dev: join(root, 'dev') }),
        confinement: confinementOf(root),
      }
      const port = connection('serial:///dev/ttyUSB0?baud=38400')
      const first = serialPrinter()
      plug(root, 'ttyUSB0', first.serialPath)
      expect(listDeviceFiles(t.devices.roots)).toEqual([
        {
          kind: 'serial',
          path: '/dev/ttyUSB0',
          usb: { vendorId: 0x0403, productId: 0x6001, serial: 'A1B2' },
          driver: undefined,
        },
      ])
      expect(
        await submit(port, job(1), new AbortController().signal, {
          transports: t,
          model: { profile: 'generic-80mm', width: 80 },
        }),
      ).toEqual({ ok: true })
      expect((await printed(first)).bytes).toEqual(job(1))

      unplug(root, 'ttyUSB0')
      first.stop()
      expect(
        await submit(port, job(2), new AbortController().signal, {
          transports: t,
          model: { profile: 'generic-80mm', width: 80 },
        }),
      ).toMatchObject({ ok: false, failure: { code: 'printer.unreachable', retryable: true } })

      const second = serialPrinter()
      plug(root, 'ttyUSB1', second.serialPath)
      expect(
        await submit(port, job(3), new AbortController().signal, {
          transports: t,
          model: { profile: 'generic-80mm', width: 80 },
        }),
      ).toEqual({ ok: true })
      expect((await printed(second)).bytes).toEqual(job(3))
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
