// serial:///dev/ttyUSB0?baud=38400&flow=rtscts: a printer on a serial port, raw, at the speed and
// with the flow control of its settings, which the kernel then honours (RTS/CTS in the UART, XON/XOFF
// in the tty layer), so a printer's small buffer never overflows.
import type { Connection } from '../domain/connection-uri.ts'
import { failure } from '../protocol/failures.ts'
import type { OpenChannel } from './channel.ts'
import { confineDevice } from './confine.ts'
import { DeviceChannel } from './device-channel.ts'
import type { DeviceFinder } from './devices.ts'
import { ioctl, TCSETS } from './libc.ts'
import { refused } from './submission.ts'
import { termiosFor } from './termios.ts'

type Serial = Extract<Connection, { kind: 'serial' }>

export function serialChannel(connection: Serial, devices: DeviceFinder): OpenChannel {
  return async (events) => {
    const file = devices.resolve(connection.path, 'serial')
    if (!file)
      return refused(
        failure('printer.unreachable', `There is no printer at ${connection.path} (unplugged or switched off?).`),
      )
    const device = confineDevice(file, 'serial')
    if (!device.ok) return refused(failure('printer.invalid_connection', device.message))
    return DeviceChannel.open(device.real, events, 'output-queue', (fd) =>
      ioctl(fd, TCSETS, termiosFor(connection), 'setting up the serial port'),
    )
  }
}
