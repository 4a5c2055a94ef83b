// QR codes and barcodes as both decoders print them: the data checked as a printer would check
// it, then one block with the settings in force.
import { barcodeContent } from './barcode-content.ts'
import type { Code128Data } from './code128.ts'
import type { Printer } from './printer.ts'
import { isUtf8, qrModules } from './qr.ts'
import type { BarcodeSymbology, HriPosition, QrErrorCorrection } from './receipt.ts'

export interface QrSettings {
  moduleDots: number
  errorCorrection: QrErrorCorrection
  /** The data stored for the next print command. */
  data: Uint8Array | undefined
}

export interface BarcodeSettings {
  moduleDots: number
  wideDots: number
  heightDots: number
  hri: HriPosition
}

export function printQr(printer: Printer, settings: QrSettings, offset: number, command: string): void {
  const { data, moduleDots, errorCorrection } = settings
  if (data === undefined || data.length === 0)
    return printer.warnings.add(offset, `${command}: no QR data is stored, so nothing prints`)
  if (!isUtf8(data))
    printer.warnings.add(
      offset,
      `${command}: the QR data is not UTF-8; the preview draws it with U+FFFD for the bytes it cannot read`,
    )
  if (qrModules(data, errorCorrection) === undefined) {
    return printer.warnings.add(
      offset,
      `${command}: ${data.length} bytes do not fit in a QR code at error correction ${errorCorrection}`,
    )
  }
  printer.print({ kind: 'qr', alignment: printer.alignment, data, moduleDots, errorCorrection }, offset, command)
}

/** A barcode as a command asks for it: its symbology and data (how code 128 reads it), and the settings in force. */
export interface BarcodePrint {
  symbology: BarcodeSymbology
  data: Uint8Array
  code128Data: Code128Data
  settings: BarcodeSettings
}

export function printBarcode(
  printer: Printer,
  { symbology, data, code128Data, settings }: BarcodePrint,
  offset: number,
  command: string,
): void {
  const content = barcodeContent(symbology, data, code128Data)
  if (!content.ok) return printer.warnings.add(offset, `${command}: ${content.problem}; nothing prints`)
  if (content.note) printer.warnings.add(offset, `${command}: ${content.note}`)
  const { text, code128 } = content
  printer.print(
    { kind: 'barcode', alignment: printer.alignment, symbology, text, code128, ...settings },
    offset,
    command,
  )
}
