// A USB printer driven through its bulk endpoints, for a printer the usblp driver does not hold:
// the printer-class interface (class 7) is claimed, the job goes to its bulk OUT endpoint, and
// answers come from its bulk IN endpoint where it has one. The device API is WebUSB's, as the `usb`
// package (3.x) offers it; it is loaded only when such a printer is used or looked for.
import type { Connection } from '../domain/connection-uri.ts'
import { type Failure, failure } from '../protocol/failures.ts'
import { type Channel, type ChannelEvents, CLOSED, type OpenChannel } from './channel.ts'
import { CANCELLED, refused, type Stopped } from './submission.ts'
import { DEVICE_WRITE_TIMEOUT_MS } from './device-channel.ts'
import { hex4 } from './devices.ts'

/** The USB interface class of printers. */
export const USB_PRINTER_CLASS = 7
/** The most the job's bytes are handed over in one transfer. */
const TRANSFER_BYTES = 4096

/** The part of WebUSB's USBDevice printhub uses. */
export interface UsbDevice {
  vendorId: number
  productId: number
  serialNumber?: string | null
  manufacturerName?: string | null
  productName?: string | null
  opened: boolean
  configuration?: {
    interfaces: {
      interfaceNumber: number
      alternate: {
        interfaceClass: number
        endpoints: { endpointNumber: number; direction: 'in' | 'out'; type: string }[]
      }
    }[]
  } | null
  open(): Promise<void>
  close(): Promise<void>
  selectConfiguration(value: number): Promise<void>
  claimInterface(interfaceNumber: number): Promise<void>
  releaseInterface(interfaceNumber: number): Promise<void>
  transferOut(endpointNumber: number, data: Uint8Array): Promise<{ bytesWritten: number; status: string }>
  transferIn(endpointNumber: number, length: number): Promise<{ data?: DataView; status: string }>
}

export interface UsbBackend {
  getDevices(): Promise<UsbDevice[]>
}

/**
 * The `usb` package's device list, with every device allowed (there is no user to ask); rejects,
 * saying why, where the package cannot be loaded (the USB channel takes that as the printer being
 * unreachable, detection as USB devices not being listed).
 */
export async function loadUsbBackend(): Promise<UsbBackend> {
  try {
    const { WebUSB } = await import('usb')
    return new WebUSB({ allowAllDevices: true }) as unknown as UsbBackend
  } catch (error) {
    throw new Error(`USB devices cannot be reached here: ${(error as Error).message}`)
  }
}

/** A device's printer interface and its bulk endpoints (`in` when it can answer). */
export interface PrinterInterface {
  interfaceNumber: number
  out: number
  in: number | undefined
}

/** The printer interface of a device and its bulk endpoints; undefined when it has none. */
export function printerInterface(device: UsbDevice): PrinterInterface | undefined {
  for (const candidate of device.configuration?.interfaces ?? []) {
    if (candidate.alternate.interfaceClass !== USB_PRINTER_CLASS) continue
    const bulk = candidate.alternate.endpoints.filter((endpoint) => endpoint.type === 'bulk')
    const out = bulk.find((endpoint) => endpoint.direction === 'out')
    if (out)
      return {
        interfaceNumber: candidate.interfaceNumber,
        out: out.endpointNumber,
        in: bulk.find((endpoint) => endpoint.direction === 'in')?.endpointNumber,
      }
  }
  return undefined
}

type UsbId = Extract<Connection, { kind: 'usb-id' }>

export function usbBulkChannel(connection: UsbId, backend: UsbBackend): OpenChannel {
  return async (events, signal) => {
    if (signal.aborted) return CANCELLED
    const name = `${hex4(connection.vendorId)}:${hex4(connection.productId)}`
    let devices: UsbDevice[]
    try {
      devices = await backend.getDevices()
    } catch (error) {
      return refused(failure('printer.unreachable', `USB devices cannot be listed: ${(error as Error).message}`))
    }
    const device = devices.find(
      (d) =>
        d.vendorId === connection.vendorId &&
        d.productId === connection.productId &&
        (connection.serial === null || d.serialNumber === connection.serial),
    )
    if (!device)
      return refused(
        failure(
          'printer.unreachable',
          `No USB printer ${name}${connection.serial ? ` with serial ${connection.serial}` : ''} is plugged in.`,
        ),
      )
    let printer: ReturnType<typeof printerInterface>
    try {
      if (!device.opened) await device.open()
      if (!device.configuration) await device.selectConfiguration(1)
      printer = printerInterface(device)
      if (printer) await device.claimInterface(printer.interfaceNumber)
    } catch (error) {
      await device.close().catch(() => {})
      return refused(failure('printer.unreachable', `Cannot open the USB printer ${name}: ${(error as Error).message}`))
    }
    if (!printer) {
      await device.close().catch(() => {})
      return refused(failure('printer.unreachable', `The USB device ${name} has no printer interface.`, false))
    }
    return {
      ok: true,
      channel: new UsbBulkChannel(device, printer, name, events),
    }
  }
}

class UsbBulkChannel implements Channel {
  private closed = false
  private failure: Failure | undefined

  private readonly interfaceNumber: number
  private readonly out: number

  constructor(
    private readonly device: UsbDevice,
    printer: PrinterInterface,
    private readonly where: string,
    private readonly events: ChannelEvents,
  ) {
    this.interfaceNumber = printer.interfaceNumber
    this.out = printer.out
    if (printer.in !== undefined) void this.readLoop(printer.in)
  }

  /**
   * Writes in transfers; one the printer does not take within DEVICE_WRITE_TIMEOUT_MS fails the write (destroy() then
   * releases the device).
   */
  async write(bytes: Uint8Array, signal: AbortSignal): Promise<Stopped | undefined> {
    for (let offset = 0; offset < bytes.length; ) {
      if (signal.aborted) return CANCELLED
      if (this.failure) return refused(this.failure)
      const sent = await this.transfer(bytes.subarray(offset, offset + TRANSFER_BYTES))
      if (typeof sent !== 'number') return refused(this.fail(sent))
      offset += sent
    }
    return undefined
  }

  close(): void {
    this.destroy()
  }

  destroy(): void {
    if (this.closed) return
    this.closed = true
    this.failure ??= CLOSED
    void this.device
      .releaseInterface(this.interfaceNumber)
      .catch(() => {})
      .then(() => this.device.close())
      .catch(() => {})
  }

  /** One transfer out: the bytes the printer took, or why it took none. */
  private async transfer(chunk: Uint8Array): Promise<number | Failure> {
    let timer: Timer | undefined
    const timeout = new Promise<Failure>((resolve) => {
      timer = setTimeout(
        () =>
          resolve(
            failure(
              'printer.timeout',
              `The printer at ${this.where} took nothing for ${DEVICE_WRITE_TIMEOUT_MS / 1000} s.`,
            ),
          ),
        DEVICE_WRITE_TIMEOUT_MS,
      )
    })
    const sent = this.device.transferOut(this.out, chunk).then(
      (result) => (result.status === 'ok' ? result.bytesWritten : this.gone(`transfer ${result.status}`)),
      (error: unknown) => this.gone((error as Error).message),
    )
    try {
      return await Promise.race([sent, timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  private async readLoop(endpoint: number): Promise<void> {
    while (!this.closed) {
      try {
        const result = await this.device.transferIn(endpoint, 64)
        if (result.data && result.data.byteLength > 0)
          this.events.data(new Uint8Array(result.data.buffer, result.data.byteOffset, result.data.byteLength))
      } catch (error) {
        if (!this.closed) this.fail(this.gone((error as Error).message))
        return
      }
    }
  }

  private gone(reason: string): Failure {
    return failure('printer.unreachable', `The printer at ${this.where} went away (${reason}).`)
  }

  private fail(reason: Failure): Failure {
    if (this.failure) return this.failure
    this.failure = reason
    this.events.fail(reason)
    return reason
  }
}
