// The printer profiles under printers/, imported statically so they are embedded in the binary,
// and checked when this module loads (a test loads it, so a broken file never ships).
import bixolonSrp350plusIII from '../../printers/bixolon-srp-350plusiii.json'
import epsonTmM30III from '../../printers/epson-tm-m30iii.json'
import epsonTmT20III from '../../printers/epson-tm-t20iii.json'
import epsonTmT88VI from '../../printers/epson-tm-t88vi.json'
import generic58 from '../../printers/generic-58mm.json'
import generic80 from '../../printers/generic-80mm.json'
import starTsp143IV from '../../printers/star-tsp143iv.json'
import sunmiV2 from '../../printers/sunmi-v2.json'
import xprinterXp58 from '../../printers/xprinter-xp-58.json'
import xprinterXp80C from '../../printers/xprinter-xp-80c.json'
import type { PaperWidth } from '../protocol/document.ts'
import { parseProfile, type PrinterProfile } from './profile.ts'

export type { PrinterProfile } from './profile.ts'

/** By file name; the generic ones first, then by vendor and model. */
const FILES: Record<string, unknown> = {
  'generic-80mm': generic80,
  'generic-58mm': generic58,
  'bixolon-srp-350plusiii': bixolonSrp350plusIII,
  'epson-tm-m30iii': epsonTmM30III,
  'epson-tm-t20iii': epsonTmT20III,
  'epson-tm-t88vi': epsonTmT88VI,
  'star-tsp143iv': starTsp143IV,
  'sunmi-v2': sunmiV2,
  'xprinter-xp-58': xprinterXp58,
  'xprinter-xp-80c': xprinterXp80C,
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
