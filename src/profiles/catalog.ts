// The printer profiles under printers/, imported statically so they are embedded in the binary.
import generic58 from '../../printers/generic-58mm.json'
import generic80 from '../../printers/generic-80mm.json'
import type { PaperWidth } from '../protocol/document.ts'

export interface PrinterProfile {
  id: string
  name: string
  commandSet: 'escpos' | 'starprnt'
  paperWidths: PaperWidth[]
  defaultWidth: PaperWidth
}

/** A profile file, named by its file name. JSON imports type numbers loosely, hence the one cast. */
function profile(id: string, data: object): PrinterProfile {
  return Object.freeze({ id, ...(data as Omit<PrinterProfile, 'id'>) })
}

export const PROFILES: readonly PrinterProfile[] = [profile('generic-80mm', generic80), profile('generic-58mm', generic58)]

export const DEFAULT_PROFILE_ID = 'generic-80mm'

/** The generic profile for a paper width; the 80 mm one when no width is given. */
export function defaultProfileId(width: PaperWidth | undefined): string {
  return width === 58 ? 'generic-58mm' : DEFAULT_PROFILE_ID
}

export function findProfile(id: string): PrinterProfile | undefined {
  return PROFILES.find((p) => p.id === id)
}
