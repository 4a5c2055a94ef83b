// usb:///dev/usb/lp0 and usb://VID:PID[/SERIAL]: a USB printer. The kernel's usblp driver is the
// way in where it holds the printer (plain reads and writes on its device file, found again by
// its USB identity after a replug); a printer without it is driven by its bulk endpoints.
import type { Connection } from '../domain/connection-uri.ts'
import { failure } from '../protocol/failures.ts'
import type { OpenChannel } from './channel.ts'
import { confineDevice } from './confine.ts'
import { DeviceChannel } from './device-channel.ts'
import { type DeviceFinder, hex4 } from './devices.ts'
import { refused } from './submission.ts'
import { type UsbBackend, usbBulkChannel } from './usb-bulk.ts'

type UsbConnection = Extract<Connection, { kind: 'usb-device-file' | 'usb-id' }>

export function usbChannel(
  connection: UsbConnection,
  devices: DeviceFinder,
  backend: () => Promise<UsbBackend>,
): OpenChannel {
  return async (events, signal) => {
    const file =
      connection.kind === 'usb-device-file'
        ? devices.resolve(connection.path, 'usblp')
        : devices.find(connection, 'usblp')
    if (file) {
      const device = confineDevice(file, 'usblp')
      if (!device.ok) return refused(failure('printer.invalid_connection', device.message))
      return DeviceChannel.open(device.real, events, 'next-write')
    }
    if (connection.kind === 'usb-device-file')
      return refused(
        failure('printer.unreachable', `There is no printer at ${connection.path} (unplugged or switched off?).`),
      )
    let usb: UsbBackend
    try {
      usb = await backend()
    } catch (error) {
      // The `usb` package could not be loaded here: no printer without usblp can be reached.
      return refused(failure('printer.unreachable', (error as Error).message))
    }
    return usbBulkChannel(connection, usb)(events, signal)
  }
}

/** How a connection is named in messages. */
export const usbName = (connection: UsbConnection) =>
  connection.kind === 'usb-device-file'
    ? connection.path
    : `USB ${hex4(connection.vendorId)}:${hex4(connection.productId)}` +
      (connection.serial ? `/${connection.serial}` : '')
