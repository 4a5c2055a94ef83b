// What a printer prints from a byte stream, in order: the model the decoders build and the text
// and PNG views draw. Independent of the renderer: nothing here knows about documents.

export type Alignment = 'left' | 'center' | 'right'

/** Characters printed in one style; what is not said is the default (1 x 1, no underline, black on white, font A). */
export interface TextRun {
  readonly text: string
  readonly bold: boolean
  /** Magnification across and down. */
  readonly size?: { readonly width: number; readonly height: number }
  /** Underline thickness in dots. */
  readonly underline?: 1 | 2
  /** White on black. */
  readonly invert?: true
  readonly font?: 'b'
}

/** One printed line of text (an empty one is a blank line). */
export interface TextLine {
  readonly kind: 'text'
  readonly alignment: Alignment
  readonly runs: readonly TextRun[]
}

/** A raster bit image, `widthBytes` bytes per row, the leftmost dot in the high bit. */
export interface RasterImage {
  readonly kind: 'image'
  readonly alignment: Alignment
  /** Width in dots (widthBytes * 8). */
  readonly width: number
  readonly height: number
  readonly widthBytes: number
  readonly rows: Uint8Array
}

export type QrErrorCorrection = 'L' | 'M' | 'Q' | 'H'

export interface QrSymbol {
  readonly kind: 'qr'
  readonly alignment: Alignment
  /** The stored data bytes, as the printer encodes them. */
  readonly data: Uint8Array
  readonly moduleDots: number
  readonly errorCorrection: QrErrorCorrection
}

export type BarcodeSymbology = 'upca' | 'ean13' | 'code39' | 'code128'
export type HriPosition = 'none' | 'above' | 'below' | 'both'

export interface Barcode {
  readonly kind: 'barcode'
  readonly alignment: Alignment
  readonly symbology: BarcodeSymbology
  /**
   * What the bars encode, as a scanner reads it: UPC-A and EAN-13 with their check digit, code
   * 39 without its `*` start and stop characters, code 128 without code set selections.
   */
  readonly text: string
  /** Code 128 only: the symbol values from the start character on, before the check character and stop. */
  readonly code128: readonly number[]
  /** Narrowest bar or space, in dots. */
  readonly moduleDots: number
  /** Code 39's wide elements, in dots (the other symbologies use multiples of the module). */
  readonly wideDots: number
  readonly heightDots: number
  readonly hri: HriPosition
}

export interface Feed {
  readonly kind: 'feed'
  readonly lines: number
}

export interface Cut {
  readonly kind: 'cut'
  readonly partial: boolean
}

/** A pulse on the cash drawer connector: nothing prints, a drawer opens. */
export interface Pulse {
  readonly kind: 'pulse'
  readonly pin: 2 | 5
  readonly onMs: number
  readonly offMs: number
}

/** The buzzer: nothing prints, the printer beeps. */
export interface Beep {
  readonly kind: 'beep'
  readonly times: number
  readonly durationMs: number
}

export type Block = TextLine | RasterImage | QrSymbol | Barcode | Feed | Cut | Pulse | Beep

export interface Receipt {
  readonly blocks: readonly Block[]
  /** Bytes the preview could not read as a printer would, each with its offset; bounded in number. */
  readonly warnings: readonly string[]
}
