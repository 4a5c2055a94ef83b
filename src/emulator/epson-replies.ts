// What an Epson TM printer answers to the status requests printhub sends: `DLE EOT n` real-time
// status (one byte per request, bits as in Epson's ESC/POS reference) and the `GS ( H` process ID
// response. The emulator answers with these; the bits are the ones a transport reads.

/** What state the emulated printer is in. */
export interface PrinterState {
  paper: 'ok' | 'near-end' | 'out'
  coverOpen: boolean
  /** Offline for another reason: an error the printer reports (cutter jam, overheating). */
  error: boolean
  /** Offline with no error: waiting for someone (after the feed button, or switched offline). */
  offline: boolean
}

/** Bits 1 and 4 are always set in every status byte. */
const FIXED = 0x12

/**
 * The answer to `DLE EOT n` for n = 1 (printer), 2 (offline cause), 3 (error cause), 4 (roll paper); undefined for
 * other n.
 */
export function realtimeStatus(n: number, state: PrinterState): number | undefined {
  const paperOut = state.paper === 'out'
  const offline = paperOut || state.coverOpen || state.error || state.offline
  switch (n) {
    case 1:
      return FIXED | (offline ? 0x08 : 0)
    case 2:
      return FIXED | (state.coverOpen ? 0x04 : 0) | (paperOut ? 0x20 : 0) | (state.error ? 0x40 : 0)
    case 3:
      return FIXED | (state.error ? 0x20 : 0)
    case 4:
      return FIXED | (state.paper !== 'ok' ? 0x0c : 0) | (paperOut ? 0x60 : 0)
    default:
      return undefined
  }
}

/** `GS ( H` fn 48 answered: header 0x37, identifier 0x22, the four ID bytes, NUL. */
export function processIdResponse(id: Uint8Array): Uint8Array {
  return Uint8Array.of(0x37, 0x22, ...id, 0x00)
}
