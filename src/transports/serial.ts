// serial:///dev/ttyUSB0?baud=38400&flow=rtscts: a printer on a serial port, raw, at the speed and
// with the flow control of its settings, which the kernel then honours (RTS/CTS in the UART, XON/XOFF
// in the tty layer), so a printer's small buffer never overflows.
import type { Connection } from '../domain/connection-uri.ts'
import { DeviceChannel } from './device-channel.ts'
import type { DeviceFinder } from './devices.ts'
import { ioctl, TCSETS } from './libc.ts'
import type { OpenChannel } from './printer-link.ts'
import { SubmitError } from './submit-error.ts'
import { termiosFor } from './termios.ts'

type Serial = Extract<Connection, { kind: 'serial' }>

export function serialChannel(connection: Serial, devices: DeviceFinder): OpenChannel {
  return async (events) => {
    const file = devices.resolve(connection.path, 'serial')
    if (!file) throw new SubmitError('printer.unreachable', `There is no printer at ${connection.path} (unplugged or switched off?).`, true)
    return DeviceChannel.open(file, events, 'output-queue', (fd) => ioctl(fd, TCSETS, termiosFor(connection), 'setting up the serial port'))
  }
}
