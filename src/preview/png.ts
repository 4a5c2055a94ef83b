// A receipt drawn as the paper would come out: one pixel per printer dot, `dotsPerLine` wide,
// white paper and black dots (a 1-bit grayscale PNG).
import { encode } from 'fast-png'
import { barcodeBars } from './barcode-bars.ts'
import { DotCanvas } from './canvas.ts'
import { CELL_HEIGHT, cellHeight, type Drawing, drawText, textWidth } from './font.ts'
import { qrModules } from './qr.ts'
import type { Alignment, Barcode, Block, QrSymbol, RasterImage, TextLine, TextRun } from './receipt.ts'

/** A text line's height: the 24-dot cell and a 6-dot gap, near printers' default line spacing (3.75 to 4.23 mm). */
const LINE_DOTS = 30
/** The height of the mark a cut leaves in the picture. */
const CUT_DOTS = 16
/** White around a QR code, in modules, as ISO/IEC 18004 asks. */
const QR_QUIET_MODULES = 4
/** White either side of a barcode, in modules: at least the 10 most symbologies ask for. */
const BARCODE_QUIET_MODULES = 10
/** Between the bars and their human-readable text. */
const HRI_GAP_DOTS = 4
/** The longest picture drawn, about 4 m of paper at 203 dpi; a receipt beyond it is cut off there. */
export const MAX_PREVIEW_ROWS = 32_768

interface Piece {
  readonly height: number
  draw(canvas: DotCanvas, top: number): void
}

/** The x of something `width` dots wide; something wider than the paper starts at its left edge. */
function leftOf(alignment: Alignment, width: number, dotsPerLine: number): number {
  const free = Math.max(0, dotsPerLine - width)
  return alignment === 'left' ? 0 : alignment === 'center' ? Math.floor(free / 2) : free
}

const drawingOf = (run: TextRun): Drawing => ({
  width: run.size?.width ?? 1,
  height: run.size?.height ?? 1,
  font: run.font ?? 'a',
})

/**
 * A line of text: as tall as its tallest run and the usual gap, runs standing on one baseline;
 * each run magnified, underlined and inverted as it says.
 */
function textPiece({ runs, alignment }: TextLine, dotsPerLine: number): Piece {
  const width = runs.reduce((sum, run) => sum + textWidth(run.text, drawingOf(run)), 0)
  const cell = Math.max(CELL_HEIGHT, ...runs.map((run) => cellHeight(drawingOf(run))))
  const gap = LINE_DOTS - CELL_HEIGHT
  return {
    height: cell + gap,
    draw(canvas, top) {
      let x = leftOf(alignment, width, dotsPerLine)
      for (const run of runs) {
        const drawing = drawingOf(run)
        const height = cellHeight(drawing)
        const runTop = top + gap / 2 + cell - height
        const right = drawText(canvas, run.text, { left: x, top: runTop, bold: run.bold, drawing })
        if (run.underline)
          canvas.fill(x, runTop + height - run.underline * drawing.height, right - x, run.underline * drawing.height)
        if (run.invert) canvas.invert(x, runTop, right - x, height)
        x = right
      }
    },
  }
}

/** Something that prints nothing (the drawer, the buzzer), noted in small type so the picture says it happened. */
function notePiece(text: string): Piece {
  return {
    height: LINE_DOTS,
    draw: (canvas, top) =>
      void drawText(canvas, text, {
        left: 0,
        top: top + (LINE_DOTS - CELL_HEIGHT) / 2,
        bold: false,
        drawing: { width: 1, height: 1, font: 'b' },
      }),
  }
}

function imagePiece(image: RasterImage, dotsPerLine: number): Piece {
  return {
    height: image.height,
    draw: (canvas, top) => canvas.drawBits(leftOf(image.alignment, image.width, dotsPerLine), top, image),
  }
}

/**
 * Where a symbol's first module goes: the symbol and its quiet zones placed as one by the
 * alignment, or, when they are wider than the paper, the symbol alone (the paper's margins are
 * its quiet zones then).
 */
function symbolLeft(alignment: Alignment, symbolWidth: number, quietWidth: number, dotsPerLine: number): number {
  const withQuietZones = symbolWidth + 2 * quietWidth
  return withQuietZones <= dotsPerLine
    ? leftOf(alignment, withQuietZones, dotsPerLine) + quietWidth
    : leftOf(alignment, symbolWidth, dotsPerLine)
}

function qrPiece(symbol: QrSymbol, dotsPerLine: number): Piece {
  // The decoder only keeps symbols that encode, so the fallback is never drawn.
  const modules = qrModules(symbol.data, symbol.errorCorrection) ?? []
  const quiet = QR_QUIET_MODULES * symbol.moduleDots
  const width = modules.length * symbol.moduleDots
  return {
    height: width + 2 * quiet,
    draw(canvas, top) {
      const left = symbolLeft(symbol.alignment, width, quiet, dotsPerLine)
      modules.forEach((row, y) =>
        row.forEach((dark, x) => {
          if (dark)
            canvas.fill(
              left + x * symbol.moduleDots,
              top + quiet + y * symbol.moduleDots,
              symbol.moduleDots,
              symbol.moduleDots,
            )
        }),
      )
    },
  }
}

function barcodePiece(barcode: Barcode, dotsPerLine: number): Piece {
  const bars = barcodeBars(barcode)
  const symbolWidth = bars.reduce((sum, width) => sum + width, 0)
  const quiet = BARCODE_QUIET_MODULES * barcode.moduleDots
  const textAbove = barcode.hri === 'above' || barcode.hri === 'both'
  const textBelow = barcode.hri === 'below' || barcode.hri === 'both'
  const textHeight = CELL_HEIGHT + HRI_GAP_DOTS
  return {
    height: (textAbove ? textHeight : 0) + barcode.heightDots + (textBelow ? textHeight : 0),
    draw(canvas, top) {
      const left = symbolLeft(barcode.alignment, symbolWidth, quiet, dotsPerLine)
      const textLeft = left + Math.floor((symbolWidth - textWidth(barcode.text)) / 2)
      let y = top
      if (textAbove) {
        drawText(canvas, barcode.text, { left: textLeft, top: y, bold: false })
        y += textHeight
      }
      let x = left
      bars.forEach((width, index) => {
        // Even elements are bars, odd ones spaces.
        if (index % 2 === 0) canvas.fill(x, y, width, barcode.heightDots)
        x += width
      })
      if (textBelow)
        drawText(canvas, barcode.text, { left: textLeft, top: y + barcode.heightDots + HRI_GAP_DOTS, bold: false })
    },
  }
}

/** A dashed line across the paper; a partial cut leaves its middle uncut. */
function cutPiece(partial: boolean, dotsPerLine: number): Piece {
  const DASH = 8
  const UNCUT = 64
  return {
    height: CUT_DOTS,
    draw(canvas, top) {
      const middle = dotsPerLine / 2
      for (let x = 0; x < dotsPerLine; x++) {
        const uncut = partial && Math.abs(x - middle) < UNCUT / 2
        if (!uncut && Math.floor(x / DASH) % 2 === 0) canvas.set(x, top + CUT_DOTS / 2)
      }
    },
  }
}

function pieceOf(block: Block, dotsPerLine: number): Piece {
  switch (block.kind) {
    case 'text':
      return textPiece(block, dotsPerLine)
    case 'image':
      return imagePiece(block, dotsPerLine)
    case 'qr':
      return qrPiece(block, dotsPerLine)
    case 'barcode':
      return barcodePiece(block, dotsPerLine)
    case 'feed':
      return { height: block.lines * LINE_DOTS, draw: () => {} }
    case 'cut':
      return cutPiece(block.partial, dotsPerLine)
    case 'pulse':
      return notePiece(`[drawer: pin ${block.pin}]`)
    case 'beep':
      return notePiece(`[buzzer: ${block.times} x ${block.durationMs} ms]`)
  }
}

/** The receipt as a picture (at most MAX_PREVIEW_ROWS high). */
function receiptDots(blocks: readonly Block[], dotsPerLine: number): DotCanvas {
  const pieces: Piece[] = []
  let height = 0
  for (const block of blocks) {
    if (height >= MAX_PREVIEW_ROWS) break
    const piece = pieceOf(block, dotsPerLine)
    pieces.push(piece)
    height += piece.height
  }
  const canvas = new DotCanvas(dotsPerLine, Math.min(Math.max(height, 1), MAX_PREVIEW_ROWS))
  let top = 0
  for (const piece of pieces) {
    piece.draw(canvas, top)
    top += piece.height
  }
  return canvas
}

/** The receipt as PNG bytes: 1-bit grayscale, `dotsPerLine` pixels wide. */
export function receiptPng(receipt: { readonly blocks: readonly Block[] }, dotsPerLine: number): Uint8Array {
  const canvas = receiptDots(receipt.blocks, dotsPerLine)
  // In a grayscale PNG 1 is white; on the canvas 1 is a black dot.
  const data = canvas.rows.map((byte) => ~byte & 0xff)
  return encode({ width: canvas.width, height: canvas.height, data, depth: 1, channels: 1 })
}
