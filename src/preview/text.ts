// A receipt as plain text: each printed line placed within `columns` as the printer aligns it,
// and a bracketed note for what is not text.
import { qrText } from './qr.ts'
import type { Block, TextLine } from './receipt.ts'

function alignedLine({ runs, alignment }: TextLine, columns: number): string {
  const text = runs.map((run) => run.text).join('')
  // A magnified character takes as many columns as it is wide.
  const used = runs.reduce((sum, run) => sum + Array.from(run.text).length * (run.size?.width ?? 1), 0)
  const free = Math.max(0, columns - used)
  const indent = alignment === 'left' ? 0 : alignment === 'center' ? Math.floor(free / 2) : free
  // Trailing spaces print as nothing.
  return (' '.repeat(indent) + text).trimEnd()
}

function linesOf(block: Block, columns: number): string[] {
  switch (block.kind) {
    case 'text':
      return [alignedLine(block, columns)]
    case 'image':
      return [`[image ${block.width}x${block.height}]`]
    case 'qr':
      return [`[QR: ${qrText(block.data)}]`]
    case 'barcode':
      return [`[barcode ${block.symbology}: ${block.text}]`]
    case 'feed':
      return Array<string>(block.lines).fill('')
    case 'cut':
      return [block.partial ? '[partial cut]' : '[cut]']
    case 'pulse':
      return [`[drawer: pin ${block.pin}]`]
    case 'beep':
      return [`[buzzer: ${block.times} x ${block.durationMs} ms]`]
  }
}

export function receiptText(receipt: { readonly blocks: readonly Block[] }, columns: number): string[] {
  return receipt.blocks.flatMap((block) => linesOf(block, columns))
}
