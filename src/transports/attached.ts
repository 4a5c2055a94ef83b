// Whether a printer attached to one machine (a serial port, a USB printer, a file) is attached to this one now: what
// a cluster's node asks before it takes such a printer's lease (dispatcher/cluster-printers.ts), so that it is driven
// by a node on its machine only.
import type { AttachedConnection } from '../domain/connection-uri.ts'
import type { DeviceFinder } from './devices.ts'
import type { UsbBackend } from './usb-bulk.ts'

/** Where to look: the device files, and this machine's USB devices (none where USB cannot be reached). */
export interface AttachedSources {
  devices: DeviceFinder
  usb: () => Promise<UsbBackend>
}

export async function attachedHere(connection: AttachedConnection, sources: AttachedSources): Promise<boolean> {
  switch (connection.kind) {
    case 'serial':
      return sources.devices.resolve(connection.path, 'serial') !== undefined
    case 'usb-device-file':
      return sources.devices.resolve(connection.path, 'usblp') !== undefined
    case 'usb-id': {
      const found = await sources
        .usb()
        .then((backend) => backend.getDevices())
        .catch(() => [])
      return found.some(
        (device) =>
          device.vendorId === connection.vendorId &&
          device.productId === connection.productId &&
          (connection.serial === null || device.serialNumber === connection.serial),
      )
    }
    case 'file':
      // Written in the data directory of whichever node drives it.
      return true
  }
}
