// Whether a printer attached to one machine is attached to this one: a serial port or a USB printer file while its
// device is there (a real pseudo-terminal behind a stand-in /dev), a USB printer by its identity among this
// machine's USB devices (a stand-in backend: no USB hardware here), a file always; where USB cannot be reached, none.
import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import type { AttachedConnection } from '../../src/domain/connection-uri.ts'
import { PrinterEmulator } from '../../src/emulator/emulator.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import { attachedHere } from '../../src/transports/attached.ts'
import { DeviceFinder } from '../../src/transports/devices.ts'
import type { UsbBackend, UsbDevice } from '../../src/transports/usb-bulk.ts'
import { tempDir } from '../support/hub.ts'

const emulator = PrinterEmulator.serial({ profile: findProfile('generic-80mm')!, width: 80 })
afterAll(() => emulator.stop())

const device = (vendorId: number, productId: number, serialNumber: string | null) =>
  ({ vendorId, productId, serialNumber }) as UsbDevice

test('a serial port while its device is there, not once gone; a USB printer by identity; a file always', async () => {
  const root = tempDir()
  try {
    mkdirSync(join(root, 'dev'), { recursive: true })
    symlinkSync(emulator.serialPath, join(root, 'dev', 'ttyUSB0'))
    const usb: UsbDevice[] = [device(0x04b8, 0x0e28, 'X6WY01')]
    const sources = {
      devices: new DeviceFinder({ sys: join(root, 'sys'), dev: join(root, 'dev') }),
      usb: async (): Promise<UsbBackend> => ({ getDevices: async () => usb }),
    }
    const here = (connection: AttachedConnection) => attachedHere(connection, sources)
    expect(await here({ kind: 'serial', path: '/dev/ttyUSB0', baud: 19200, flow: 'none' } as AttachedConnection)).toBe(
      true,
    )
    expect(await here({ kind: 'serial', path: '/dev/ttyUSB1' } as AttachedConnection)).toBe(false)
    expect(await here({ kind: 'usb-device-file', path: '/dev/usb/lp0' })).toBe(false)
    expect(await here({ kind: 'usb-id', vendorId: 0x04b8, productId: 0x0e28, serial: null })).toBe(true)
    expect(await here({ kind: 'usb-id', vendorId: 0x04b8, productId: 0x0e28, serial: 'X6WY01' })).toBe(true)
    expect(await here({ kind: 'usb-id', vendorId: 0x04b8, productId: 0x0e28, serial: 'OTHER' })).toBe(false)
    expect(await here({ kind: 'file', path: join(root, 'output', 'a.bin') })).toBe(true)
    rmSync(join(root, 'dev', 'ttyUSB0'))
    expect(await here({ kind: 'serial', path: '/dev/ttyUSB0' } as AttachedConnection)).toBe(false)
    const noUsb = {
      ...sources,
      usb: async (): Promise<UsbBackend> => {
        throw new Error('USB devices cannot be reached here')
      },
    }
    expect(await attachedHere({ kind: 'usb-id', vendorId: 0x04b8, productId: 0x0e28, serial: null }, noUsb)).toBe(false)
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})
