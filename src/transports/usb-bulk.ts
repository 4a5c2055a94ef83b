// A USB printer driven through its bulk endpoints, for a printer the usblp driver does not hold:
// the printer-class interface (class 7) is claimed, the job goes to its bulk OUT endpoint, and
// answers come from its bulk IN endpoint where it has one. The device API is WebUSB's, as the `usb`
// package (3.x) offers it; it is loaded only when such a printer is used or looked for.
import type { Connection } from '../domain/connection-uri.ts'
import type { Channel, ChannelEvents, OpenChannel } from './printer-link.ts'
import { cancelled, SubmitError } from './submit-error.ts'
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
  configuration?: { interfaces: { interfaceNumber: number; alternate: { interfaceClass: number; endpoints: { endpointNumber: number; direction: 'in' | 'out'; type: string }[] } }[] } | null
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

/** The `usb` package's device list, with every device allowed (there is no user to ask). */
export async function loadUsbBackend(): Promise<UsbBackend> {
  try {
    const { WebUSB } = await import('usb')
    return new WebUSB({ allowAllDevices: true }) as unknown as UsbBackend
  } catch (error) {
    throw new SubmitError('printer.unreachable', `USB devices cannot be reached here: ${(error as Error).message}`, true)
  }
}

/** The printer interface of a device and its bulk endpoints; undefined when it has none. */
export function printerInterface(device: UsbDevice): { interfaceNumber: number; out: number; in: number | undefined } | undefined {
  for (const candidate of device.configuration?.interfaces ?? []) {
    if (candidate.alternate.interfaceClass !== USB_PRINTER_CLASS) continue
    const bulk = candidate.alternate.endpoints.filter((endpoint) => endpoint.type === 'bulk')
    const out = bulk.find((endpoint) => endpoint.direction === 'out')
    if (out) return { interfaceNumber: candidate.interfaceNumber, out: out.endpointNumber, in: bulk.find((endpoint) => endpoint.direction === 'in')?.endpointNumber }
  }
  return undefined
}

type UsbId = Extract<Connection, { kind: 'usb-id' }>

export function usbBulkChannel(connection: UsbId, backend: UsbBackend): OpenChannel {
  return async (events, signal) => {
    if (signal.aborted) throw cancelled()
    const name = `${hex4(connection.vendorId)}:${hex4(connection.productId)}`
    let devices: UsbDevice[]
    try {
      devices = await backend.getDevices()
    } catch (error) {
      throw new SubmitError('printer.unreachable', `USB devices cannot be listed: ${(error as Error).message}`, true)
    }
    const device = devices.find((d) => d.vendorId === connection.vendorId && d.productId === connection.productId && (connection.serial === null || d.serialNumber === connection.serial))
    if (!device) throw new SubmitError('printer.unreachable', `No USB printer ${name}${connection.serial ? ` with serial ${connection.serial}` : ''} is plugged in.`, true)
    try {
      if (!device.opened) await device.open()
      if (!device.configuration) await device.selectConfiguration(1)
      const printer = printerInterface(device)
      if (!printer) throw new SubmitError('printer.unreachable', `The USB device ${name} has no printer interface.`, false)
      await device.claimInterface(printer.interfaceNumber)
      return new UsbBulkChannel(device, printer.interfaceNumber, printer.out, printer.in, name, events)
    } catch (error) {
      await device.close().catch(() => {})
      if (error instanceof SubmitError) throw error
      throw new SubmitError('printer.unreachable', `Cannot open the USB printer ${name}: ${(error as Error).message}`, true)
    }
  }
}

class UsbBulkChannel implements Channel {
  private closed = false
  private failure: SubmitError | undefined

  constructor(
    private readonly device: UsbDevice,
    private readonly interfaceNumber: number,
    private readonly out: number,
    input: number | undefined,
    private readonly where: string,
    private readonly events: ChannelEvents,
  ) {
    if (input !== undefined) void this.readLoop(input)
  }

  async write(bytes: Uint8Array, signal: AbortSignal): Promise<void> {
    for (let offset = 0; offset < bytes.length; ) {
      if (signal.aborted) throw cancelled()
      if (this.failure) throw this.failure
      let timer: Timer | undefined
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new SubmitError('printer.timeout', `The printer at ${this.where} took nothing for ${DEVICE_WRITE_TIMEOUT_MS / 1000} s.`, true)), DEVICE_WRITE_TIMEOUT_MS)
      })
      try {
        const result = await Promise.race([this.device.transferOut(this.out, bytes.subarray(offset, offset + TRANSFER_BYTES)), timeout])
        if (result.status !== 'ok') throw new Error(`transfer ${result.status}`)
        offset += result.bytesWritten
      } catch (error) {
        throw this.fail(error instanceof SubmitError ? error : new SubmitError('printer.unreachable', `The printer at ${this.where} went away (${(error as Error).message}).`, true))
      } finally {
        clearTimeout(timer)
      }
    }
  }

  close(): void {
    this.destroy()
  }

  destroy(): void {
    if (this.closed) return
    this.closed = true
    this.failure ??= new SubmitError('printer.unreachable', 'closed', true)
    void this.device
      .releaseInterface(this.interfaceNumber)
      .catch(() => {})
      .then(() => this.device.close())
      .catch(() => {})
  }

  private async readLoop(endpoint: number): Promise<void> {
    while (!this.closed) {
      try {
        const result = await this.device.transferIn(endpoint, 64)
        if (result.data && result.data.byteLength > 0) this.events.data(new Uint8Array(result.data.buffer, result.data.byteOffset, result.data.byteLength))
      } catch (error) {
        if (!this.closed) this.fail(new SubmitError('printer.unreachable', `The printer at ${this.where} went away (${(error as Error).message}).`, true))
        return
      }
    }
  }

  private fail(error: SubmitError): SubmitError {
    if (this.failure) return this.failure
    this.failure = error
    this.events.fail(error)
    return error
  }
}
