// The log's lines as written: text and JSON, levels, the journal's priorities, quoting that keeps a
// line one line, and the budget of repeated lines (with a clock the test moves).
import { afterAll, describe, expect, test } from 'bun:test'
import { closeSync, fstatSync, openSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import {
  isJournal,
  LIMIT_LINES,
  LIMIT_WINDOW_MS,
  Log,
  type LogSettings,
  logSettingsFrom,
} from '../../src/platform/log.ts'
import { tempDir } from '../support/hub.ts'

const T0 = Date.parse('2026-11-25T12:00:00.000Z')
let clock = T0

function capture(settings: Partial<LogSettings> = {}) {
  const lines: string[] = []
  const log = new Log(
    { format: 'text', level: 'info', journal: false, ...settings },
    (line) => lines.push(line),
    () => clock,
  )
  return { lines, log }
}

describe('text', () => {
  test('time, level, component, fields in the order given, then the message; undefined fields left out', () => {
    clock = T0
    const { lines, log } = capture()
    log.for('job').info('PENDING -> DISPATCHING', { job: 'job_abc', printer: 'prn_x', code: undefined, attempt: 1 })
    log.for('disk').error('full', { freeMb: 12 })
    log.for('gateway').warn('agent disconnected')
    expect(lines).toEqual([
      '2026-11-25T12:00:00.000Z info  job job=job_abc printer=prn_x attempt=1 PENDING -> DISPATCHING',
      '2026-11-25T12:00:00.000Z error disk freeMb=12 full',
      '2026-11-25T12:00:00.000Z warn  gateway agent disconnected',
    ])
  })

  test('values with spaces, quotes, = or control characters are quoted; a message cannot break the line', () => {
    const { lines, log } = capture()
    log
      .for('gateway')
      .info('hello\nforged line', { name: 'bar pi', reason: 'said "no"', eq: 'a=b', empty: '', nl: 'x\ny' })
    expect(lines).toHaveLength(1)
    expect(lines[0]).toBe(
      '2026-11-25T12:00:00.000Z info  gateway name="bar pi" reason="said ' +
        '\\"no\\"" eq="a=b" empty="" nl="x\\ny" hello\\nforged line',
    )
  })

  test('entries below the level are not written', () => {
    const { lines, log } = capture({ level: 'warn' })
    const job = log.for('job')
    job.debug('d')
    job.info('i')
    job.warn('w')
    job.error('e')
    expect(lines.map((line) => line.split(' ')[1])).toEqual(['warn', 'error'])
    expect(job.enabled('info')).toBe(false)
    expect(job.enabled('error')).toBe(true)
  })

  test('for the journal: the syslog priority first and no time', () => {
    const { lines, log } = capture({ journal: true, level: 'debug' })
    const printer = log.for('printer')
    printer.debug('d')
    printer.info('i', { printer: 'prn_x' })
    printer.warn('w')
    printer.error('e')
    expect(lines).toEqual([
      '<7>debug printer d',
      '<6>info  printer printer=prn_x i',
      '<4>warn  printer w',
      '<3>error printer e',
    ])
  })
})

describe('JSON', () => {
  test('one object per line: time, level, component, msg, then the fields as they are', () => {
    const { lines, log } = capture({ format: 'json' })
    log.for('job').warn('DISPATCHING -> FAILED', {
      job: 'job_abc',
      attempt: 3,
      code: 'printer.offline',
      skipped: undefined,
      msg: 'not this one',
    })
    expect(lines).toHaveLength(1)
    const entry = JSON.parse(lines[0]!)
    expect(Object.keys(entry)).toEqual(['time', 'level', 'component', 'msg', 'job', 'attempt', 'code'])
    expect(entry).toEqual({
      time: '2026-11-25T12:00:00.000Z',
      level: 'warn',
      component: 'job',
      msg: 'DISPATCHING -> FAILED',
      job: 'job_abc',
      attempt: 3,
      code: 'printer.offline',
    })
  })

  test(
    "serve's events: with their fields; with --json (events), exactly the " +
      'event, and other lines are delivery events',
    () => {
      const json = capture({ format: 'json' })
      json.log.for('hub').info('stopped', undefined, { event: { event: 'stopped' } })
      expect(JSON.parse(json.lines[0]!)).toEqual({
        time: '2026-11-25T12:00:00.000Z',
        level: 'info',
        component: 'hub',
        msg: 'stopped',
        event: 'stopped',
      })
      const events = capture({ format: 'json', events: true })
      events.log.for('hub').info('stopped', undefined, { event: { event: 'stopped' } })
      events.log.for('gateway').info('agent connected', { agent: 'agt_1' })
      expect(events.lines[0]).toBe('{"event":"stopped"}')
      expect(JSON.parse(events.lines[1]!)).toEqual({
        event: 'delivery',
        message: 'agent connected',
        time: '2026-11-25T12:00:00.000Z',
        level: 'info',
        component: 'gateway',
        msg: 'agent connected',
        agent: 'agt_1',
      })
    },
  )
})

describe('repeated lines', () => {
  test(`a flapping printer: ${LIMIT_LINES} lines a minute, then one with how many were left out`, () => {
    clock = T0
    const { lines, log } = capture()
    const printer = log.for('printer')
    for (let i = 0; i < 5_000; i++) {
      printer[i % 2 ? 'info' : 'warn'](
        i % 2 ? 'offline -> online' : 'online -> offline',
        { printer: 'prn_x' },
        { limit: 'printer prn_x' },
      )
      // Another key has its own budget.
      if (i < 3) printer.warn('online -> paper_out', { printer: 'prn_y' }, { limit: 'printer prn_y' })
    }
    expect(lines).toHaveLength(LIMIT_LINES + 3)
    // The window ends: the next line of the key first says what was left out.
    clock = T0 + LIMIT_WINDOW_MS
    printer.info('offline -> online', { printer: 'prn_x' }, { limit: 'printer prn_x' })
    expect(lines.at(-2)).toBe(
      `2026-11-25T12:01:00.000Z info  printer printer=prn_x suppressed=${5_000 - LIMIT_LINES} offline -> online`,
    )
    expect(lines.at(-1)).toBe('2026-11-25T12:01:00.000Z info  printer printer=prn_x offline -> online')
    expect(lines).toHaveLength(LIMIT_LINES + 5)
  })

  test('the count is written at shutdown (flush) too, and lines without a key are never held back', () => {
    clock = T0
    const { lines, log } = capture()
    const disk = log.for('disk')
    for (let i = 0; i < LIMIT_LINES + 7; i++) disk.error('full', undefined, { limit: 'disk' })
    for (let i = 0; i < 50; i++) disk.info('request line')
    expect(lines).toHaveLength(LIMIT_LINES + 50)
    log.flush()
    expect(lines.at(-1)).toBe('2026-11-25T12:00:00.000Z error disk suppressed=7 full')
  })
})

describe('settings', () => {
  test('flags win over the environment; defaults text and info; a wrong value names itself', () => {
    expect(logSettingsFrom({}, {})).toEqual({ ok: true, format: 'text', level: 'info' })
    expect(logSettingsFrom({}, { PRINTHUB_LOG_FORMAT: 'json', PRINTHUB_LOG_LEVEL: 'warn' })).toEqual({
      ok: true,
      format: 'json',
      level: 'warn',
    })
    expect(
      logSettingsFrom({ format: 'text', level: 'debug' }, { PRINTHUB_LOG_FORMAT: 'json', PRINTHUB_LOG_LEVEL: 'warn' }),
    ).toEqual({ ok: true, format: 'text', level: 'debug' })
    expect(logSettingsFrom({ level: 'verbose' }, {})).toEqual({
      ok: false,
      problem: '--log-level must be one of debug, info, warn, error (got "verbose")',
    })
    expect(logSettingsFrom({}, { PRINTHUB_LOG_FORMAT: 'xml' })).toEqual({
      ok: false,
      problem: 'PRINTHUB_LOG_FORMAT must be one of text, json (got "xml")',
    })
  })

  const dir = tempDir()
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  test('the journal is the stream JOURNAL_STREAM names (device:inode), not any other', () => {
    const fd = openSync(join(dir, 'stream'), 'w')
    try {
      const stat = fstatSync(fd, { bigint: true })
      expect(isJournal({ JOURNAL_STREAM: `${stat.dev}:${stat.ino}` }, fd)).toBe(true)
      expect(isJournal({ JOURNAL_STREAM: `${stat.dev}:${stat.ino + 1n}` }, fd)).toBe(false)
      expect(isJournal({}, fd)).toBe(false)
    } finally {
      closeSync(fd)
    }
  })
})
