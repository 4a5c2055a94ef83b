import { findProfile } from '../profiles/catalog.ts'
import type { PrintDocument } from '../protocol/document.ts'
import { previewFor } from '../preview/printer-preview.ts'
import { render, targetFor } from '../render/render.ts'
import type { PrinterRecord } from '../store/printers.ts'
import { parseConnectionUri } from '../domain/connection-uri.ts'

/** The receipt a document makes on a printer, as a PNG: rendered for its model, then read back as the printer would print it. */
export function receiptPng(document: PrintDocument, printer: Pick<PrinterRecord, 'profile' | 'width' | 'connection'>): Uint8Array {
  const parsed = parseConnectionUri(printer.connection)
  const bytes = render(document, targetFor(printer.profile, printer.width, parsed.ok ? parsed.connection.kind : undefined))
  return previewFor(bytes, findProfile(printer.profile)!, printer.width).png()
}
