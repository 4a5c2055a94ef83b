// The plain text view: lines placed within the columns as the printer aligns them, a note in
// brackets for everything else.
import { expect, test } from 'bun:test'
import { receiptText } from '../../src/preview/preview.ts'
import { ESC, escpos, GS, LF } from './support.ts'

test('each kind of block as text', () => {
  const qr = new TextEncoder().encode('Café')
  const receipt = escpos(
    'left', LF,
    ESC, 'a', 1, 'centre', LF,
    ESC, 'a', 2, 'right  ', LF,
    ESC, 'a', 0, GS, 'v', '0', 0, 1, 0, 2, 0, 0xff, 0xff,
    GS, '(', 'k', qr.length + 3, 0, 49, 80, 48, qr, GS, '(', 'k', 3, 0, 49, 81, 48,
    GS, 'k', 69, 3, 'ABC',
    ESC, 'd', 2,
    GS, 'V', 0, GS, 'V', 1,
  )
  expect(receiptText(receipt, 12)).toEqual(['left', '   centre', '     right', '[image 8x2]', '[QR: Café]', '[barcode code39: ABC]', '', '', '[cut]', '[partial cut]'])
})
