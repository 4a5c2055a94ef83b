// `printhub printers detect`, `probe` and `test` as their own processes, against the printer
// emulator; detection also over a stand-in sysfs with a USB adapter, usblp printers and USB
// printer-class devices.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PrinterEmulator } from '../../src/emulator/emulator.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import { parseConnectionUri } from '../../src/domain/connection-uri.ts'
import { detectPrinters } from '../../src/transports/detect.ts'
import type { UsbDevice } from '../../src/transports/usb-bulk.ts'
import { cli, cliJson } from '../support/cli.ts'
import { tempDir } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

const emulator = PrinterEmulator.listen({
  hostname: '127.0.0.1',
  port: 0,
  profile: findProfile('epson-tm-t20iii')!,
  width: 80,
})
const dataDir = tempDir()
afterAll(() => {
  emulator.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('printers detect', () => {
  test('on this machine: every candidate comes with a connection printhub accepts', async () => {
    const result = await cliJson<{ printers: { connection: string }[]; usbError: string | null }>([
      'printers',
      'detect',
    ])
    for (const printer of result.printers) expect(parseConnectionUri(printer.connection).ok).toBe(true)
    expect(result.usbError === null || typeof result.usbError === 'string').toBe(true)
  })

  test('serial adapters, usblp and USB printer-class devices, with the profile their IDs suggest', async () => {
    const root = tempDir()
    try {
      const sys = join(root, 'sys')
      const usbDevice = (path: string, vendor: string, product: string, serial?: string) => {
        mkdirSync(join(sys, path), { recursive: true })
        writeFileSync(join(sys, path, 'idVendor'), `${vendor}\n`)
        writeFileSync(join(sys, path, 'idProduct'), `${product}\n`)
        if (serial) writeFileSync(join(sys, path, 'serial'), `${serial}\n`)
      }
      const classEntry = (className: string, name: string, device: string) => {
        mkdirSync(join(sys, device), { recursive: true })
        mkdirSync(join(sys, 'class', className, name), { recursive: true })
        symlinkSync(join(sys, device), join(sys, 'class', className, name, 'device'))
      }
      usbDevice('devices/usb1/1-1', '0403', '6001', 'A1B2')
      classEntry('tty', 'ttyUSB0', 'devices/usb1/1-1/1-1:1.0/ttyUSB0')
      usbDevice('devices/usb1/1-2', '04b8', '0e28', 'X7')
      classEntry('usbmisc', 'lp0', 'devices/usb1/1-2/1-2:1.0')
      // A console and an 8250 UART with no hardware behind it are not ports.
      mkdirSync(join(sys, 'class/tty/tty1'), { recursive: true })
      classEntry('tty', 'ttyS3', 'devices/platform/serial8250/tty/ttyS3')
      writeFileSync(join(sys, 'class/tty/ttyS3/type'), '0\n')
      mkdirSync(join(root, 'dev/serial/by-id'), { recursive: true })
      writeFileSync(join(root, 'dev/ttyUSB0'), '')
      symlinkSync(join(root, 'dev/ttyUSB0'), join(root, 'dev/serial/by-id/usb-FTDI_FT232R_A1B2-if00-port0'))

      const printerClass = (vendorId: number, productId: number, serialNumber: string, interfaceClass = 7) =>
        ({
          vendorId,
          productId,
          serialNumber,
          manufacturerName: 'Maker',
          productName: 'Model',
          configuration: {
            interfaces: [
              {
                interfaceNumber: 0,
                alternate: { interfaceClass, endpoints: [{ endpointNumber: 1, direction: 'out', type: 'bulk' }] },
              },
            ],
          },
        }) as unknown as UsbDevice
      const usb = async () => ({
        getDevices: async () => [
          printerClass(0x04b8, 0x0e28, 'X7'), // the usblp printer again: listed once
          printerClass(0x0519, 0x0003, 'S1'),
          printerClass(0x04b8, 0x9999, 'E2'),
          printerClass(0x046d, 0xc52b, 'K', 3), // a keyboard receiver
        ],
      })
      const { printers, usbError } = await detectPrinters({ sys, dev: join(root, 'dev') }, usb)
      expect(usbError).toBeNull()
      expect(printers.map((p) => [p.kind, p.connection, p.suggestedProfile, p.suggestion])).toEqual([
        ['serial', 'serial:///dev/serial/by-id/usb-FTDI_FT232R_A1B2-if00-port0', null, null],
        ['usblp', 'usb://04b8:0e28/X7', 'epson-tm-m30iii', 'model'],
        ['usb', 'usb://0519:0003/S1', 'star-tsp143iv', 'model'],
        ['usb', 'usb://04b8:9999/E2', findProfile('epson-tm-m30iii')!.id, 'vendor'],
      ])
      expect(printers[0]!.usb).toEqual({
        vendorId: '0403',
        productId: '6001',
        serial: 'A1B2',
        vendor: null,
        product: null,
      })
      const failing = await detectPrinters({ sys, dev: join(root, 'dev') }, async () => ({
        getDevices: async () => Promise.reject(new Error('no USB subsystem')),
      }))
      expect([failing.printers.length, failing.usbError]).toEqual([2, 'no USB subsystem'])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})

describe('printers probe', () => {
  test('reachable, and what its status says', async () => {
    const url = `tcp://127.0.0.1:${emulator.port}`
    expect(await cliJson(['printers', 'probe', url])).toEqual({
      connection: url,
      reachable: true,
      status: { online: true, paper: 'ok', coverOpen: false, error: false },
    })
    emulator.set({ coverOpen: true, paper: 'near-end' })
    try {
      const text = await cli(['printers', 'probe', url])
      expect(text).toMatchObject({ code: 0, stdout: `${url}: reachable; offline, paper running low, cover open\n` })
    } finally {
      emulator.set({ coverOpen: false, paper: 'ok' })
    }
  })

  test('nothing there: exit 1, in plain words; a bad URI: exit 2', async () => {
    const result = await cli(['printers', 'probe', 'tcp://127.0.0.1:9', '--json'])
    expect(result.code).toBe(1)
    expect(JSON.parse(result.stdout)).toMatchObject({ reachable: false, error: { code: 'printer.unreachable' } })
    expect(await cli(['printers', 'probe', 'serial:///dev/ttyUSB97'])).toMatchObject({
      code: 1,
      stderr: 'serial:///dev/ttyUSB97: There is no printer at /dev/ttyUSB97 (unplugged or switched off?).\n',
    })
    expect((await cli(['printers', 'probe', 'lpt://1'])).code).toBe(2)
  })
})

describe('printers test', () => {
  test('prints a test page: hub, addresses, model, status and a QR code to the hub', async () => {
    const env = { PRINTHUB_DATA_DIR: dataDir, PRINTHUB_PORT: '8631' }
    const init = await cliJson<{ projectId: string }>(['init'], env)
    await cliJson(
      [
        'printers',
        'add',
        '--project',
        init.projectId,
        '--id',
        'counter',
        '--connection',
        `tcp://127.0.0.1:${emulator.port}`,
        '--profile',
        'epson-tm-t20iii',
      ],
      env,
    )
    const before = emulator.receipts.length
    expect(await cliJson(['printers', 'test', 'counter', '--project', init.projectId], env)).toEqual({
      printer: 'counter',
      printed: true,
      confirmed: true,
      status: 'online, paper ok',
    })
    const page = (await waitFor(() => emulator.receipts[before])).preview
    expect(page.text[0]).toContain('printhub test page')
    expect(page.text.join('\n')).toContain('Epson TM-T20III, 80 mm')
    expect(page.text.join('\n')).toContain('Äöü ß é è ñ ç € £ ¿ ¡')
    const qr = page.receipt.blocks.find((block) => block.kind === 'qr')
    expect(new TextDecoder().decode((qr as { data: Uint8Array }).data)).toMatch(/^http:\/\/.+:8631\/$/)
    const missing = await cli(['printers', 'test', 'nothere', '--project', init.projectId], env)
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringContaining('has no printer "nothere"') })
  })
})
