// The message catalog: every language says every ticket state, printer state, failure code,
// timeline step and page in words (with a sign for each state), nothing is left empty or in
// English by mistake; and the language for a reader is the account's, else the browser's best
// choice that printhub has, else English.
import { describe, expect, test } from 'bun:test'
import type { PrinterState } from '../../src/domain/printer-state.ts'
import { API_ERROR_CODES } from '../../src/protocol/api-errors.ts'
import { EVENT_TYPES } from '../../src/protocol/events.ts'
import { FAILURE_CODES } from '../../src/protocol/failures.ts'
import { JOB_STATES } from '../../src/protocol/job.ts'
import { en } from '../../src/protocol/messages/en.ts'
import { LANGUAGE_CODES, LANGUAGES, pickLanguage } from '../../src/protocol/messages/index.ts'
import { PAGES_PATHS } from '../support/dashboard-pages.ts'

const PRINTER_STATES: PrinterState[] = ['online', 'paper_low', 'paper_out', 'cover_open', 'error', 'offline', 'unknown']

/** Every string in a value, with where it is. */
function strings(value: unknown, path = ''): [string, string][] {
  if (typeof value === 'string') return [[path, value]]
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([key, inner]) => strings(inner, path ? `${path}.${key}` : key))
}

describe('the message catalog', () => {
  for (const code of LANGUAGE_CODES) {
    test(`${code}: every state, failure, error code, event, step and page in words; nothing empty`, () => {
      const messages = LANGUAGES[code]
      for (const state of JOB_STATES)
        expect(messages.jobStates[state].word.length * messages.jobStates[state].icon.length).toBeGreaterThan(0)
      for (const state of PRINTER_STATES) expect(messages.printerStates[state]?.word).toBeString()
      expect(Object.keys(messages.printerStates).sort()).toEqual([...PRINTER_STATES].sort())
      for (const failure of FAILURE_CODES) expect(messages.failures[failure].say).toBeString()
      expect(Object.keys(messages.failures).sort()).toEqual([...FAILURE_CODES].sort())
      for (const state of JOB_STATES) expect(messages.timeline[state]).toBeString()
      expect(Object.keys(messages.errors).sort()).toEqual([...API_ERROR_CODES].sort())
      expect(Object.keys(messages.events).sort()).toEqual([...EVENT_TYPES].sort())
      expect(Object.keys(messages.pages).sort()).toEqual([...PAGES_PATHS].sort())
      for (const [path, text] of strings(messages))
        expect({ path, empty: text.trim() === '' }).toEqual({ path, empty: false })
      // The same shape as English, key for key.
      expect(strings(messages).map(([path]) => path)).toEqual(strings(en).map(([path]) => path))
    })
  }

  test('German is German: no state, printer state or failure left in English', () => {
    const english = new Map(strings(en))
    // Words German has from English as they are, and the signs.
    const shared = new Set([
      'frame.navigation',
      'pages.webhooks',
      'overview.version',
      'signIn.name',
      'printers.kindUsb',
      'printers.port',
      'printers.name',
      'destinations.name',
      'users.name',
      'settings.hub',
      'printers.kindCloudPrnt',
      'printers.kindEpsonSdp',
      'overview.diskKinds.mmc',
    ])
    const same = strings(LANGUAGES.de).filter(
      ([path, text]) => english.get(path) === text && !path.endsWith('.icon') && !shared.has(path),
    )
    expect(same).toEqual([])
  })

  test("the language: the account's, else the browser's best that printhub has, else English", () => {
    expect(pickLanguage('de-DE,de;q=0.9,en;q=0.8')).toBe('de')
    expect(pickLanguage('fr-CH, fr;q=0.9, de;q=0.7, en;q=0.5')).toBe('de')
    expect(pickLanguage('en-GB,de;q=0.9')).toBe('en')
    expect(pickLanguage('de;q=0.2, en;q=0.8')).toBe('en')
    expect(pickLanguage('en;q=0, de')).toBe('de')
    expect(pickLanguage('fr')).toBe('en')
    expect(pickLanguage(null)).toBe('en')
    expect(pickLanguage('')).toBe('en')
    expect(pickLanguage('*')).toBe('en')
    expect(pickLanguage('de;q=abc')).toBe('de')
    expect(pickLanguage(`${'x,'.repeat(10_000)}de`)).toBe('en')
    expect(pickLanguage('en', 'de')).toBe('de')
    expect(pickLanguage('de', 'xx')).toBe('de')
    expect(pickLanguage('de', null)).toBe('de')
  })
})
