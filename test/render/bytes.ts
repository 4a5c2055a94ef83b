// Expected ESC/POS bytes written readably (strings are ASCII, numbers single bytes), and the
// error a document that cannot be printed gets.
import type { PrintDocument, Section } from '../../src/protocol/document.ts'
import { defaultProfileId } from '../../src/profiles/catalog.ts'
import { RenderError, type RenderTarget, render, targetFor } from '../../src/render/render.ts'

export const ESC = 0x1b
export const GS = 0x1d
export const LF = 0x0a

export function bytes(...parts: (string | number | readonly number[])[]): number[] {
  return parts.flatMap((part) =>
    typeof part === 'string' ? Array.from(part, (c) => c.charCodeAt(0)) : typeof part === 'number' ? [part] : [...part],
  )
}

/** What every rendering starts with: `ESC @`, then `ESC t 19` (PC858). */
export const PROLOGUE = bytes(ESC, '@', ESC, 't', 19)

/** The generic printer of a paper width, or the given profile at that width. */
export function target(width: PrintDocument['width'], profileId = defaultProfileId(width)): RenderTarget {
  return targetFor(profileId, width)
}

/** The RenderError rendering `sections` throws; fails the test when it renders. */
export function renderError(sections: Section[], width: PrintDocument['width'] = 58, profileId?: string): RenderError {
  try {
    render({ width, sections }, target(width, profileId))
  } catch (error) {
    if (error instanceof RenderError) return error
    throw error
  }
  throw new Error('rendered')
}
