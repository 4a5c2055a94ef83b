// Text to printer bytes in code page PC858: ASCII plus the Western European letters and the euro
// sign, which receipts need and which Epson and most compatible printers have.
import { RenderError } from './errors.ts'

/** The `ESC t` number of PC858 in Epson's table list. */
export const PC858_CODE_TABLE = 19

/** Bytes 0x80-0xFF of PC858: PC850 with the euro sign at 0xD5 (where PC850 has dotless i). */
const PC858_HIGH =
  'ÇüéâäàåçêëèïîìÄÅ' + // 0x80
  'ÉæÆôöòûùÿÖÜø£Ø×ƒ' + // 0x90
  'áíóúñÑªº¿®¬½¼¡«»' + // 0xA0
  '░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐' + // 0xB0
  '└┴┬├─┼ãÃ╚╔╩╦╠═╬¤' + // 0xC0
  'ðÐÊËÈ€ÍÎÏ┘┌█▄¦Ì▀' + // 0xD0
  'ÓßÔÒõÕµþÞÚÛÙýÝ¯´' + // 0xE0
  '\u00ad±‗¾¶§÷¸°¨·¹³²■\u00a0' // 0xF0

const HIGH_BYTES: ReadonlyMap<string, number> = new Map(Array.from(PC858_HIGH, (character, i) => [character, 0x80 + i]))

const hex = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`

/**
 * Encodes one laid-out line. Printable ASCII passes as is; control characters are refused like any
 * other unprintable character, because in the byte stream they would be printer commands.
 */
export function encodePc858(line: string): Uint8Array {
  const bytes = new Uint8Array(line.length)
  let length = 0
  for (const character of line) {
    const codePoint = character.codePointAt(0)!
    const byte = codePoint >= 0x20 && codePoint < 0x7f ? codePoint : HIGH_BYTES.get(character)
    if (byte === undefined) {
      // Never a silent `?`: a receipt with a wrong character is worse than a job that fails and says why.
      throw new RenderError('render.unsupported_character', `${hex(codePoint)} is not in code page PC858 and cannot be printed as text`, false)
    }
    bytes[length++] = byte
  }
  return bytes.subarray(0, length)
}
