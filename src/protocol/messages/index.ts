// The languages people can read printhub in, and the choice of one: the account's own, else the
// first the browser asks for that printhub has (`Accept-Language`), else English. Adding a
// language is one file of words beside en.json, and its line here (its type is English's: the
// compiler says what it lacks).
import german from './de.json'
import { en, type Messages } from './en.ts'

const de: Messages = german

export type { FailureWords, Messages, PrinterWords, StateWords } from './en.ts'

export const LANGUAGES = { en, de } as const satisfies Record<string, Messages>
export type Language = keyof typeof LANGUAGES
export const LANGUAGE_CODES = Object.keys(LANGUAGES) as Language[]

/** The language the hub's own messages are written in: its error answers, its logs, the CLI. */
export const HUB_LANGUAGE: Language = 'en'

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && Object.hasOwn(LANGUAGES, value)
}

/**
 * The language for a reader: `chosen` when it is one printhub has, else the best of `acceptLanguage` (RFC 9110
 * weights), else English.
 */
export function pickLanguage(acceptLanguage: string | null | undefined, chosen?: string | null): Language {
  if (isLanguage(chosen)) return chosen
  const asked = (acceptLanguage ?? '')
    .split(',')
    .slice(0, 32)
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';')
      const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find((v) => v !== undefined)
      return { primary: tag.toLowerCase().split('-')[0]!, q: q === undefined ? 1 : Number(q), index }
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
  return asked.map((entry) => entry.primary).find(isLanguage) ?? 'en'
}
