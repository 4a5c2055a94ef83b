// What a document costs to print, computed before it is accepted (from the image headers, without
// decoding them), and whether it stays within DOCUMENT_COST_LIMITS.
import { imageHeader } from './image.ts'
import { DOCUMENT_COST_LIMITS } from './limits.ts'

export type DocumentCost = { -readonly [K in keyof typeof DOCUMENT_COST_LIMITS]: number }

/** Magnified text costs its area: a character 2 wide and 2 tall counts as 4. */
type Size = { width: number; height: number } | undefined

type CostedSection =
  | { type: 'text'; value: string; size?: Size }
  | { type: 'row'; left: string; right: string; size?: Size }
  | { type: 'qr' | 'barcode' }
  | { type: 'image'; mediaType: 'image/png' | 'image/jpeg'; data: string }
  | { type: 'feed'; lines: number }
  | { type: 'divider' | 'cut' | 'drawer' | 'buzzer' | 'logo' }

const area = (size: Size) => (size ? size.width * size.height : 1)

export function documentCost(document: { sections: readonly CostedSection[] }): DocumentCost {
  const cost: DocumentCost = { textCharacters: 0, imagePixels: 0, imageRows: 0, codes: 0, feedLines: 0 }
  for (const section of document.sections) {
    switch (section.type) {
      case 'text':
        cost.textCharacters += section.value.length * area(section.size)
        break
      case 'row':
        cost.textCharacters += (section.left.length + section.right.length) * area(section.size)
        break
      case 'qr':
      case 'barcode':
        cost.codes++
        break
      case 'feed':
        cost.feedLines += section.lines
        break
      case 'image': {
        const size = imageHeader(section.mediaType, section.data)
        if (typeof size === 'string') break
        cost.imagePixels += size.width * size.height
        cost.imageRows += size.height
        break
      }
    }
  }
  return cost
}

const WHAT: Record<keyof DocumentCost, string> = {
  textCharacters: 'characters of text',
  imagePixels: 'pixels of images',
  imageRows: 'rows of images',
  codes: 'QR codes and barcodes',
  feedLines: 'lines of feed',
}

const number = (n: number) => n.toLocaleString('en-US')

/** What makes the document cost more than a document may, naming each limit; empty when none. */
export function documentCostProblems(document: { sections: readonly CostedSection[] }): string[] {
  const cost = documentCost(document)
  return (Object.keys(DOCUMENT_COST_LIMITS) as (keyof DocumentCost)[])
    .filter((name) => cost[name] > DOCUMENT_COST_LIMITS[name])
    .map(
      (name) =>
        `has ${number(cost[name])} ${WHAT[name]} in all; a document may have at ` +
        `most ${number(DOCUMENT_COST_LIMITS[name])} (the document cost ` +
        `limit ${name})`,
    )
}
