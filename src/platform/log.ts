// The log of the hub and the remote agent: one line per entry, with a level, the part of the
// program that speaks (its component), a message and fields (job=…, printer=…). Text for people,
// `grep` and journald; JSON lines for machines. Under systemd (stdout is the journal) each line
// starts with its syslog priority (`<4>`), so that `journalctl -p warning` works, and leaves the
// time to journald. Lines about one thing that can repeat (a printer that flaps, an address that
// keeps failing) share a budget: beyond it they are counted, and the count is written instead.
// Nothing here knows what is secret: callers log identifiers and states, never keys, codes,
// passwords, tokens, headers or documents.
import { fstatSync } from 'node:fs'

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
export const LOG_FORMATS = ['text', 'json'] as const
export type LogFormat = (typeof LOG_FORMATS)[number]

export type LogValue = string | number | boolean | null | undefined
/** Written in the order given (each kind of line always gives them in the same order); undefined ones are left out. */
export type LogFields = Readonly<Record<string, LogValue>>

export interface LogSettings {
  format: LogFormat
  /** Entries below this level are not written. */
  level: LogLevel
  /** Stdout is the journal: a `<N>` priority first, no time (journald stamps each line). */
  journal: boolean
  /**
   * `printhub serve --json` printed events before this log existed: `listening`, `request`,
   * `delivery` (every other line), `stopping`, `stopped`. With this set, JSON lines keep saying
   * which (`event` first), so scripts written for them go on working.
   */
  events?: boolean
}

export interface EntryOptions {
  /**
   * Lines with the same key (e.g. one printer's state changes) share a budget of LIMIT_LINES per
   * LIMIT_WINDOW_MS; beyond it they are counted, and the last one is written with `suppressed=N`
   * when the window ends.
   */
  limit?: string
  /** Written whatever the level (serve's `listening`, `stopping` and `stopped`: scripts wait for them). */
  always?: boolean
  /**
   * One of serve's events (`listening`, `request`, `stopping`, `stopped`): in JSON its fields (`event`
   * among them) instead of the entry's; with `--json`, the event alone, exactly as it always was.
   */
  event?: Readonly<Record<string, unknown>>
}

/** What a part of the program logs through: its component is on every line. */
export interface Logger {
  readonly component: string
  debug(msg: string, fields?: LogFields, options?: EntryOptions): void
  info(msg: string, fields?: LogFields, options?: EntryOptions): void
  warn(msg: string, fields?: LogFields, options?: EntryOptions): void
  error(msg: string, fields?: LogFields, options?: EntryOptions): void
  /** Whether entries of `level` are written (to skip work for lines nobody reads). */
  enabled(level: LogLevel): boolean
  /** The same log, for another component. */
  for(component: string): Logger
}

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 }
/** syslog priorities (journald reads them from a `<N>` prefix). */
const PRIORITY: Record<LogLevel, string> = { debug: '<7>', info: '<6>', warn: '<4>', error: '<3>' }
/** Levels padded to one width, so that components line up. */
const LABEL: Record<LogLevel, string> = { debug: 'debug', info: 'info ', warn: 'warn ', error: 'error' }

/** Lines per key and window before the rest of the window's lines are only counted. */
export const LIMIT_LINES = 10
export const LIMIT_WINDOW_MS = 60_000
/** Keys followed at once; past this, new keys share one budget. */
const LIMIT_KEYS = 1_000
const OVERFLOW_KEY = '\u0000overflow'

/** Characters that would break a line apart, or make a text value ambiguous. */
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]/
const NEEDS_QUOTES = /[\s"=\\\u0000-\u001f\u007f\u2028\u2029]/

/** One line whatever the text holds: control characters escaped (a name with a newline cannot forge a line). */
function oneLine(text: string): string {
  if (!CONTROL.test(text)) return text
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (c) =>
    c === '\n' ? '\\n' : c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

/** A field's value in text: bare when it is one plain word, else quoted as in JSON. */
function textValue(value: Exclude<LogValue, undefined>): string {
  const text = String(value)
  return text === '' || NEEDS_QUOTES.test(text) ? JSON.stringify(text) : text
}

/** An entry of the log: its level, the component that speaks, its message and fields. */
interface Entry {
  level: LogLevel
  component: string
  msg: string
  fields: LogFields | undefined
}

interface Budget {
  start: number
  lines: number
  suppressed: number
  /** The last entry counted instead of written. */
  last?: Entry
}

export class Log {
  private readonly min: number
  private readonly budgets = new Map<string, Budget>()
  private sweeper: Timer | undefined

  constructor(
    readonly settings: Readonly<LogSettings>,
    private readonly write: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.min = RANK[settings.level]
  }

  /** A log that writes nothing (commands and tests that do not read it). */
  static silent(): Log {
    return new Log({ format: 'text', level: 'error', journal: false }, () => {})
  }

  for(component: string): Logger {
    const entry = (level: LogLevel) => (msg: string, fields?: LogFields, options?: EntryOptions) => {
      if (RANK[level] < this.min && options?.always !== true) return
      this.entry({ level, component, msg, fields }, options)
    }
    return {
      component,
      debug: entry('debug'),
      info: entry('info'),
      warn: entry('warn'),
      error: entry('error'),
      enabled: (level) => this.enabled(level),
      for: (other) => this.for(other),
    }
  }

  enabled(level: LogLevel): boolean {
    return RANK[level] >= this.min
  }

  /** Writes an entry of a level that is written (or `always`), unless its budget is spent. */
  private entry(line: Entry, options: EntryOptions | undefined): void {
    if (options?.limit !== undefined && !this.withinBudget(options.limit, line)) return
    this.write(this.format(line, options?.event))
  }

  /** Writes now the counts of lines left out in windows that have not ended yet (at shutdown). */
  flush(): void {
    for (const budget of this.budgets.values()) this.summarise(budget)
    this.budgets.clear()
    clearInterval(this.sweeper)
    this.sweeper = undefined
  }

  private format({ level, component, msg, fields }: Entry, event: EntryOptions['event']): string {
    const prefix = this.settings.journal ? PRIORITY[level] : ''
    if (this.settings.format === 'json') {
      // `--json`'s events as they always were, for the scripts written for them.
      if (event && this.settings.events) return prefix + JSON.stringify(event)
      const time = new Date(this.now()).toISOString()
      const head = this.settings.events ? { event: 'delivery', message: msg } : undefined
      const line: Record<string, unknown> = head
        ? { ...head, time, level, component, msg }
        : { time, level, component, msg }
      const rest = event ?? fields
      if (rest) for (const key in rest) if (rest[key] !== undefined && !(key in line)) line[key] = rest[key]
      return prefix + JSON.stringify(line)
    }
    let text = this.settings.journal
      ? `${prefix}${LABEL[level]} ${component}`
      : `${new Date(this.now()).toISOString()} ${LABEL[level]} ${component}`
    if (fields) {
      for (const key in fields) {
        const value = fields[key]
        if (value !== undefined) text += ` ${key}=${textValue(value)}`
      }
    }
    return `${text} ${oneLine(msg)}`
  }

  /** True when the line may be written; otherwise it is counted against its key. */
  private withinBudget(key: string, line: Entry): boolean {
    const now = this.now()
    let budget = this.budgets.get(key)
    if (budget && now - budget.start >= LIMIT_WINDOW_MS) {
      this.summarise(budget)
      budget = undefined
    }
    if (!budget) {
      if (this.budgets.size >= LIMIT_KEYS) this.sweep()
      if (this.budgets.size >= LIMIT_KEYS && key !== OVERFLOW_KEY) return this.withinBudget(OVERFLOW_KEY, line)
      budget = { start: now, lines: 0, suppressed: 0 }
      this.budgets.set(key, budget)
    }
    if (budget.lines < LIMIT_LINES) {
      budget.lines++
      return true
    }
    budget.suppressed++
    budget.last = line
    // Counts are written when their window ends, also when no line of the key comes again.
    this.sweeper ??= setInterval(() => this.sweep(), LIMIT_WINDOW_MS / 4)
    this.sweeper.unref?.()
    return false
  }

  /** Ends the windows that are over: their counts are written, their keys forgotten. */
  private sweep(): void {
    const now = this.now()
    for (const [key, budget] of this.budgets) {
      if (now - budget.start < LIMIT_WINDOW_MS) continue
      this.summarise(budget)
      this.budgets.delete(key)
    }
    if (this.budgets.size === 0) {
      clearInterval(this.sweeper)
      this.sweeper = undefined
    }
  }

  private summarise(budget: Budget): void {
    if (budget.suppressed === 0 || !budget.last) return
    const { fields } = budget.last
    this.write(this.format({ ...budget.last, fields: { ...fields, suppressed: budget.suppressed } }, undefined))
    budget.suppressed = 0
    budget.last = undefined
  }
}

/** What an error says, on one line (its first), for a log field. */
export function describeError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error)
  return text.split('\n', 1)[0]!.slice(0, 500)
}

/**
 * Whether file descriptor `fd` is the journal: systemd sets JOURNAL_STREAM to the device and
 * inode of the stream it connected (stdout and stderr), which a redirect elsewhere does not match.
 */
export function isJournal(env: Record<string, string | undefined>, fd = 1): boolean {
  const stream = env.JOURNAL_STREAM
  if (!stream) return false
  const [device, inode] = stream.split(':')
  try {
    const stat = fstatSync(fd, { bigint: true })
    return String(stat.dev) === device && String(stat.ino) === inode
  } catch {
    return false
  }
}

/** The log's format and level from flags (first) and the environment, or why they are wrong. */
export function logSettingsFrom(
  flags: { format?: string; level?: string },
  env: Record<string, string | undefined>,
): { ok: true; format: LogFormat; level: LogLevel } | { ok: false; problem: string } {
  const format = pick({
    flag: '--log-format',
    flagValue: flags.format,
    name: 'PRINTHUB_LOG_FORMAT',
    envValue: env.PRINTHUB_LOG_FORMAT,
    allowed: LOG_FORMATS,
    fallback: 'text',
  })
  if (!format.ok) return format
  const level = pick({
    flag: '--log-level',
    flagValue: flags.level,
    name: 'PRINTHUB_LOG_LEVEL',
    envValue: env.PRINTHUB_LOG_LEVEL,
    allowed: LOG_LEVELS,
    fallback: 'info',
  })
  if (!level.ok) return level
  return { ok: true, format: format.value, level: level.value }
}

/** A setting of the log: its flag and its environment variable with their values, what it may be, and its default. */
interface LogChoice<T extends string> {
  flag: string
  flagValue: string | undefined
  name: string
  envValue: string | undefined
  allowed: readonly T[]
  fallback: T
}

function pick<T extends string>({
  flag,
  flagValue,
  name,
  envValue,
  allowed,
  fallback,
}: LogChoice<T>): { ok: true; value: T } | { ok: false; problem: string } {
  const [source, value] =
    flagValue !== undefined
      ? [flag, flagValue]
      : envValue !== undefined && envValue !== ''
        ? [name, envValue]
        : [undefined, fallback]
  if ((allowed as readonly string[]).includes(value)) return { ok: true, value: value as T }
  return { ok: false, problem: `${source} must be one of ${allowed.join(', ')} (got "${value}")` }
}
