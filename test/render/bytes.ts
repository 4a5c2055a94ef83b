// Expected ESC/POS bytes written readably: strings are ASCII, numbers single bytes.

export const ESC = 0x1b
export const GS = 0x1d
export const LF = 0x0a

export function bytes(...parts: (string | number | readonly number[])[]): number[] {
  return parts.flatMap((part) => (typeof part === 'string' ? Array.from(part, (c) => c.charCodeAt(0)) : typeof part === 'number' ? [part] : [...part]))
}

/** What every rendering starts with: `ESC @`, then `ESC t 19` (PC858). */
export const PROLOGUE = bytes(ESC, '@', ESC, 't', 19)
