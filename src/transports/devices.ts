// Printers attached to this machine, as the kernel lists them in sysfs: serial ports
// (/sys/class/tty) and usblp printers (/sys/class/usbmisc), each with the USB vendor, product and
// serial number of the device it belongs to, where it is a USB device. That identity is how a
// printer is found again when it comes back from a replug under another name (ttyUSB0 -> ttyUSB1).
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'

export interface UsbIdentity {
  vendorId: number
  productId: number
  serial: string | null
}

export interface DeviceFile {
  kind: 'serial' | 'usblp'
  /** The device file, as /dev/ttyUSB0 or /dev/usb/lp0. */
  path: string
  /** The USB device it belongs to; undefined for a port on the board (a UART on the GPIO pins). */
  usb: UsbIdentity | undefined
  /** The driver, as ftdi_sio, cp210x, cdc_acm, usblp or serial8250. */
  driver: string | undefined
}

/** Where sysfs and the device files are: the system's, or a stand-in tree in tests. */
export interface DeviceRoots {
  sys: string
  dev: string
}

export const SYSTEM_ROOTS: DeviceRoots = { sys: '/sys', dev: '/dev' }

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8').trim()
  } catch {
    return undefined
  }
}

/** The USB device above a sysfs device directory: the first ancestor with idVendor. */
function usbIdentityAbove(deviceDir: string, sys: string): UsbIdentity | undefined {
  let dir: string
  try {
    dir = realpathSync(deviceDir)
  } catch {
    return undefined
  }
  const top = realpathSync(sys)
  while (dir.startsWith(top) && dir !== top) {
    const vendor = read(join(dir, 'idVendor'))
    const product = read(join(dir, 'idProduct'))
    if (vendor && product)
      return {
        vendorId: parseInt(vendor, 16),
        productId: parseInt(product, 16),
        serial: read(join(dir, 'serial')) ?? null,
      }
    dir = dirname(dir)
  }
  return undefined
}

function driverOf(deviceDir: string): string | undefined {
  try {
    return basename(realpathSync(join(deviceDir, 'driver')))
  } catch {
    return undefined
  }
}

/**
 * A serial port that exists: a USB adapter, a modem-class printer, or a UART the kernel found
 * hardware for (8250 ports without any report type 0, and virtual consoles have no device).
 */
function isSerialPort(classDir: string, name: string): boolean {
  if (!existsSync(join(classDir, 'device'))) return false
  if (/^ttyS\d+$/.test(name)) return (read(join(classDir, 'type')) ?? '0') !== '0'
  return true
}

/** Every serial port and usblp printer on the machine. */
export function listDeviceFiles(roots: DeviceRoots = SYSTEM_ROOTS): DeviceFile[] {
  const found: DeviceFile[] = []
  const scan = (className: string, kind: DeviceFile['kind'], devPath: (name: string) => string) => {
    const classDir = join(roots.sys, 'class', className)
    let names: string[]
    try {
      names = readdirSync(classDir).sort(byNumber)
    } catch {
      return
    }
    for (const name of names) {
      const dir = join(classDir, name)
      if (kind === 'serial' ? !isSerialPort(dir, name) : !/^lp\d+$/.test(name)) continue
      found.push({
        kind,
        path: devPath(name),
        usb: usbIdentityAbove(join(dir, 'device'), roots.sys),
        driver: driverOf(join(dir, 'device')),
      })
    }
  }
  scan('tty', 'serial', (name) => `/dev/${name}`)
  scan('usbmisc', 'usblp', (name) => `/dev/usb/${name}`)
  return found
}

/** ttyUSB2 after ttyUSB10 is wrong: names sort by their number. */
function byNumber(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true })
}

/** A USB vendor or product ID as people and URIs write it: 4 lower-case hex digits. */
export const hex4 = (id: number) => id.toString(16).padStart(4, '0')

export const sameUsb = (a: UsbIdentity, b: UsbIdentity) =>
  a.vendorId === b.vendorId &&
  a.productId === b.productId &&
  (a.serial === null || b.serial === null || a.serial === b.serial)

/**
 * Finds the device file a printer's connection names, now: the file itself while it is there,
 * else the device of the same USB identity under whatever name it came back. Remembers the
 * identity of every file it saw, for as long as the process runs.
 */
export class DeviceFinder {
  private readonly identities = new Map<string, UsbIdentity>()

  constructor(readonly roots: DeviceRoots = SYSTEM_ROOTS) {}

  /** The file to open for `path` (a /dev path), under the roots; undefined when it is gone. */
  resolve(path: string, kind: DeviceFile['kind']): string | undefined {
    const file = this.file(path)
    if (existsSync(file)) {
      const identity = this.identityOf(path, kind)
      if (identity) this.identities.set(path, identity)
      return file
    }
    const identity = this.identities.get(path)
    return identity ? this.find(identity, kind) : undefined
  }

  /** The device file of `kind` that belongs to the USB device `identity`. */
  find(identity: UsbIdentity, kind: DeviceFile['kind']): string | undefined {
    const device = listDeviceFiles(this.roots).find(
      (candidate) => candidate.kind === kind && candidate.usb && sameUsb(candidate.usb, identity),
    )
    return device && this.file(device.path)
  }

  private file(path: string): string {
    return path.startsWith('/dev/') ? join(this.roots.dev, path.slice('/dev/'.length)) : path
  }

  /** The USB identity of the device at `path`, by its name, or the name it links to (/dev/serial/by-id). */
  private identityOf(path: string, kind: DeviceFile['kind']): UsbIdentity | undefined {
    const names = [basename(path)]
    try {
      names.push(basename(realpathSync(this.file(path))))
    } catch {
      // Gone between the check and now.
    }
    const devices = listDeviceFiles(this.roots).filter((device) => device.kind === kind)
    return devices.find((device) => names.includes(basename(device.path)))?.usb
  }
}
