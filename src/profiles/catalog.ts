// The printer profiles under printers/, imported statically so they are embedded in the binary,
// and checked when this module loads (a test loads it, so a broken file never ships).
import generic58 from '../../printers/generic-58mm.json'
import generic80 from '../../printers/generic-80mm.json'
import type { PaperWidth } from '../protocol/document.ts'
import { parseProfile, type PrinterProfile } from './profile.ts'

export type { PrinterProfile } from './profile.ts'

const FILES: Record<string, unknown> = {
  'generic-80mm': generic80,
  'generic-58mm': generic58,
}

export const PROFILES: readonly PrinterProfile[] = Object.entries(FILES).map(([id, data]) => parseProfile(id, data))

export const DEFAULT_PROFILE_ID = 'generic-80mm'

/** The generic profile for a paper width; the 80 mm one when no width is given. */
export function defaultProfileId(width: PaperWidth | undefined): string {
  return width === 58 ? 'generic-58mm' : DEFAULT_PROFILE_ID
}

export function findProfile(id: string): PrinterProfile | undefined {
  return PROFILES.find((p) => p.id === id)
}
