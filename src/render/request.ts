// One document to render for one printer model and paper: what the render worker is given.
import type { Connection } from '../domain/connection-uri.ts'
import type { PaperWidth, PrintDocument } from '../protocol/document.ts'
import { render, targetFor } from './render.ts'

export interface RenderRequest {
  document: PrintDocument
  /** The printer's profile, by ID (the catalog is in every thread). */
  profile: string
  width: PaperWidth
  /** How the printer is attached (a serial one gets smaller raster bands). */
  link?: Connection['kind'] | undefined
}

export function renderRequested(request: RenderRequest): Uint8Array {
  return render(request.document, targetFor(request.profile, request.width, request.link))
}
