// What `printhub printers detect` finds: serial ports and usblp printers from sysfs, and USB
// printer-class devices the usblp driver does not hold, each with the connection to use and the
// printer profile its USB IDs suggest. Network printers are not scanned for: a venue's network is
// not ours to sweep; one address is checked with `printers probe`.
import { readdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { PROFILES } from '../profiles/catalog.ts'
import {
  type DeviceFile,
  type DeviceRoots,
  hex4,
  listDeviceFiles,
  sameUsb,
  SYSTEM_ROOTS,
  type UsbIdentity,
} from './devices.ts'
import { printerInterface, type UsbBackend } from './usb-bulk.ts'

/** USB vendors of receipt printers, for a guess when the product is not in a profile. */
const VENDORS: Record<number, string> = {
  0x04b8: 'Epson',
  0x0519: 'Star Micronics',
  0x1504: 'Bixolon',
  0x0416: 'Xprinter',
  0x0fe6: 'Xprinter',
  0x1fc9: 'Xprinter',
  0x2730: 'Citizen',
  0x0dd4: 'Custom',
  0x154f: 'SNBC',
  0x0483: 'Rongta',
}

export interface DetectedPrinter {
  kind: 'serial' | 'usblp' | 'usb'
  /** The connection URI to give `printers add`. */
  connection: string
  /** The device file, where there is one. */
  path: string | null
  usb: {
    vendorId: string
    productId: string
    serial: string | null
    vendor: string | null
    product: string | null
  } | null
  driver: string | null
  /** The profile of this exact model, or the first of its vendor (a guess), or null. */
  suggestedProfile: string | null
  suggestion: 'model' | 'vendor' | null
}

export function suggestProfile(
  identity: UsbIdentity | undefined,
): Pick<DetectedPrinter, 'suggestedProfile' | 'suggestion'> {
  if (!identity) return { suggestedProfile: null, suggestion: null }
  const model = PROFILES.find((profile) =>
    profile.usb.some((id) => id.vendorId === hex4(identity.vendorId) && id.productId === hex4(identity.productId)),
  )
  if (model) return { suggestedProfile: model.id, suggestion: 'model' }
  const vendor = VENDORS[identity.vendorId]
  const family = vendor && PROFILES.find((profile) => profile.vendor === vendor)
  return family ? { suggestedProfile: family.id, suggestion: 'vendor' } : { suggestedProfile: null, suggestion: null }
}

/** The stable names udev gives serial ports (/dev/serial/by-id/...), by the port they point to. */
function stableSerialNames(roots: DeviceRoots): Map<string, string> {
  const names = new Map<string, string>()
  const dir = join(roots.dev, 'serial/by-id')
  try {
    for (const name of readdirSync(dir))
      names.set(realpathSync(join(dir, name)).replace(/^.*\//, ''), `/dev/serial/by-id/${name}`)
  } catch {
    // No USB serial ports, or no udev.
  }
  return names
}

function usbOf(
  identity: UsbIdentity | undefined,
  names: { vendor?: string | null; product?: string | null } = {},
): DetectedPrinter['usb'] {
  return identity
    ? {
        vendorId: hex4(identity.vendorId),
        productId: hex4(identity.productId),
        serial: identity.serial,
        vendor: names.vendor ?? VENDORS[identity.vendorId] ?? null,
        product: names.product ?? null,
      }
    : null
}

const byId = (identity: UsbIdentity) =>
  `usb://${hex4(identity.vendorId)}:${hex4(identity.productId)}${identity.serial ? `/${identity.serial}` : ''}`

function fromDeviceFile(device: DeviceFile, stable: Map<string, string>): DetectedPrinter {
  // A usblp printer is best named by its USB identity, which survives replugs; a serial port by its udev name.
  const connection =
    device.kind === 'usblp'
      ? device.usb
        ? byId(device.usb)
        : `usb://${device.path}`
      : `serial://${stable.get(device.path.replace(/^.*\//, '')) ?? device.path}`
  return {
    kind: device.kind,
    connection,
    path: device.path,
    usb: usbOf(device.usb),
    driver: device.driver ?? null,
    ...suggestProfile(device.usb),
  }
}

/**
 * Every candidate printer. USB devices come from `usb` (undefined: not looked for); when they
 * cannot be listed, `usbError` says why and the rest is still listed.
 */
export async function detectPrinters(
  roots: DeviceRoots = SYSTEM_ROOTS,
  usb?: () => Promise<UsbBackend>,
): Promise<{ printers: DetectedPrinter[]; usbError: string | null }> {
  const files = listDeviceFiles(roots)
  const stable = stableSerialNames(roots)
  const printers = files.map((device) => fromDeviceFile(device, stable))
  let usbError: string | null = null
  if (usb) {
    try {
      for (const device of await (await usb()).getDevices()) {
        if (!printerInterface(device)) continue
        const identity = { vendorId: device.vendorId, productId: device.productId, serial: device.serialNumber ?? null }
        // Held by usblp: already listed with its device file.
        if (files.some((file) => file.kind === 'usblp' && file.usb && sameUsb(file.usb, identity))) continue
        printers.push({
          kind: 'usb',
          connection: byId(identity),
          path: null,
          usb: usbOf(identity, { vendor: device.manufacturerName, product: device.productName }),
          driver: null,
          ...suggestProfile(identity),
        })
      }
    } catch (error) {
      usbError = (error as Error).message
    }
  }
  return { printers, usbError }
}
