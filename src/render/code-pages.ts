// The code pages text is printed in: bytes 0x80-0xFF of each (0x00-0x7F is ASCII in all of them).
// The number that selects one differs between vendors, so it comes from the printer's profile.
// Generated from the Unicode mapping tables (as Python's
// codecs hold them); U+0000 marks a byte with no character.

import type { CodePageName } from '../profiles/profile.ts'

export interface CodePage {
  readonly name: string
  /** What it is for, for people choosing a profile. */
  readonly covers: string
  /** Characters of bytes 0x80 to 0xFF, in order. */
  readonly high: string
}

export const PC858: CodePage = {
  name: 'PC858',
  covers: 'Western Europe with the euro sign (PC850 with € at 0xD5)',
  high:
    'ÇüéâäàåçêëèïîìÄÅ' + // 0x80
    'ÉæÆôöòûùÿÖÜø£Ø×ƒ' + // 0x90
    'áíóúñÑªº¿®¬½¼¡«»' + // 0xA0
    '░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐' + // 0xB0
    '└┴┬├─┼ãÃ╚╔╩╦╠═╬¤' + // 0xC0
    'ðÐÊËÈ€ÍÎÏ┘┌█▄¦Ì▀' + // 0xD0
    'ÓßÔÒõÕµþÞÚÛÙýÝ¯´' + // 0xE0
    '\u00ad±‗¾¶§÷¸°¨·¹³²■\u00a0', // 0xF0
}

export const PC852: CodePage = {
  name: 'PC852',
  covers: 'Central Europe: Polish, Czech, Slovak, Hungarian, Slovenian, Croatian, Romanian',
  high:
    'ÇüéâäůćçłëŐőîŹÄĆ' + // 0x80
    'ÉĹĺôöĽľŚśÖÜŤťŁ×č' + // 0x90
    'áíóúĄąŽžĘę¬źČş«»' + // 0xA0
    '░▒▓│┤ÁÂĚŞ╣║╗╝Żż┐' + // 0xB0
    '└┴┬├─┼Ăă╚╔╩╦╠═╬¤' + // 0xC0
    'đĐĎËďŇÍÎě┘┌█▄ŢŮ▀' + // 0xD0
    'ÓßÔŃńňŠšŔÚŕŰýÝţ´' + // 0xE0
    '\u00ad˝˛ˇ˘§÷¸°¨˙űŘř■\u00a0', // 0xF0
}

export const PC866: CodePage = {
  name: 'PC866',
  covers: 'Cyrillic: Russian, Ukrainian, Belarusian',
  high:
    'АБВГДЕЖЗИЙКЛМНОП' + // 0x80
    'РСТУФХЦЧШЩЪЫЬЭЮЯ' + // 0x90
    'абвгдежзийклмноп' + // 0xA0
    '░▒▓│┤╡╢╖╕╣║╗╝╜╛┐' + // 0xB0
    '└┴┬├─┼╞╟╚╔╩╦╠═╬╧' + // 0xC0
    '╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀' + // 0xD0
    'рстуфхцчшщъыьэюя' + // 0xE0
    'ЁёЄєЇїЎў°∙·√№¤■\u00a0', // 0xF0
}

export const PC737: CodePage = {
  name: 'PC737',
  covers: 'Greek',
  high:
    'ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠ' + // 0x80
    'ΡΣΤΥΦΧΨΩαβγδεζηθ' + // 0x90
    'ικλμνξοπρσςτυφχψ' + // 0xA0
    '░▒▓│┤╡╢╖╕╣║╗╝╜╛┐' + // 0xB0
    '└┴┬├─┼╞╟╚╔╩╦╠═╬╧' + // 0xC0
    '╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀' + // 0xD0
    'ωάέήϊίόύϋώΆΈΉΊΌΎ' + // 0xE0
    'Ώ±≥≤ΪΫ÷≈°∙·√ⁿ²■\u00a0', // 0xF0
}

export const PC857: CodePage = {
  name: 'PC857',
  covers: 'Turkish',
  high:
    'ÇüéâäàåçêëèïîıÄÅ' + // 0x80
    'ÉæÆôöòûùİÖÜø£ØŞş' + // 0x90
    'áíóúñÑĞğ¿®¬½¼¡«»' + // 0xA0
    '░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐' + // 0xB0
    '└┴┬├─┼ãÃ╚╔╩╦╠═╬¤' + // 0xC0
    'ºªÊËÈ\u0000ÍÎÏ┘┌█▄¦Ì▀' + // 0xD0
    'ÓßÔÒõÕµ\u0000×ÚÛÙìÿ¯´' + // 0xE0
    '\u00ad±\u0000¾¶§÷¸°¨·¹³²■\u00a0', // 0xF0
}

/** The tables by the names profiles use. */
export const CODE_PAGES: Readonly<Record<CodePageName, CodePage>> = {
  cp858: PC858,
  cp852: PC852,
  cp866: PC866,
  cp737: PC737,
  cp857: PC857,
}
