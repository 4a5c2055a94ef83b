// The settings the dashboard changes while the hub runs: the server name, the retry backoff, the limit of unfinished
// jobs per project, retention (by age and by each project's bytes), the disk's minimum and the scheduled backups. Saved
// in the store; a setting the environment set (PRINTHUB_*) is pinned: it stays as set, and the dashboard says so. One
// holder (`values`) that the parts of the hub read at each use (the gateway's name, the dispatcher's retry delays, the
// store's limit of unfinished jobs, retention, the disk guard, the backups): a change applies at once, and nothing
// keeps a copy to be updated.
import { brandNameRule } from '../protocol/discovery.ts'
import { validate } from '../protocol/rules.ts'
import type { UnitRunner } from '../storage/repositories.ts'
import type { Actor } from './actor.ts'
import { recordedChange } from './audit.ts'
import {
  backupDirProblem,
  EDITABLE_RANGES,
  EDITABLE_SETTINGS,
  type EditableSetting,
  type EditableSettings,
  retryDelaysProblem,
} from '../domain/settings.ts'

export type { EditableSettings }

/** The settings as people name them (`printhub settings set NAME VALUE`, the audit log), and the setting each is. */
export const SETTING_NAMES: Readonly<Record<string, EditableSetting>> = {
  'server-name': 'serverName',
  'retry-initial-ms': 'retryInitialMs',
  'retry-max-ms': 'retryMaxMs',
  'max-open-jobs': 'maxOpenJobsPerProject',
  'retention-days': 'retentionDays',
  'history-mb': 'historyMbPerProject',
  'min-free-mb': 'minFreeMb',
  'backup-dir': 'backupDir',
  'backup-keep': 'backupKeep',
  'cluster-lease-seconds': 'clusterLeaseSeconds',
}

/** A change as the audit log says it: each setting it changed by its name and new value, `retention-days 45`. */
function changeInWords(before: EditableSettings, after: EditableSettings): string | undefined {
  const words = Object.entries(SETTING_NAMES).flatMap(([name, setting]) => {
    const value = after[setting]
    return value === before[setting] ? [] : [`${name} ${value === '' ? '""' : String(value)}`]
  })
  return words.length > 0 ? words.join(', ') : undefined
}

/** Where the settings changed while the hub runs are saved (a JSON object). */
export const SAVED_SETTINGS_KEY = 'hub_settings'
const STORE_KEY = SAVED_SETTINGS_KEY

export type SettingsOutcome = { ok: true; settings: EditableSettings } | { ok: false; field: string; message: string }

/** Checks a change against the settings it would apply to; the first problem, in words, or the result. */
function check(
  current: EditableSettings,
  change: Partial<Record<EditableSetting, unknown>>,
  pinned: readonly EditableSetting[],
): SettingsOutcome {
  const next = { ...current }
  for (const [field, value] of Object.entries(change) as [EditableSetting, unknown][]) {
    if (!(field in EDITABLE_SETTINGS)) return { ok: false, field, message: 'is not a setting the dashboard changes' }
    if (value === undefined) continue
    if (pinned.includes(field) && value !== current[field])
      return { ok: false, field, message: `is set by ${EDITABLE_SETTINGS[field]} in the hub's environment` }
    if (field === 'serverName') {
      const result = validate(brandNameRule, value)
      if (!result.ok) return { ok: false, field, message: result.issues[0]!.message }
      next.serverName = value as string
    } else if (field === 'backupDir') {
      const problem = typeof value === 'string' ? backupDirProblem(value) : 'must be text: a directory, or empty'
      if (problem) return { ok: false, field, message: problem }
      next.backupDir = value as string
    } else {
      const range = EDITABLE_RANGES[field]
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < range.min || value > range.max) {
        return { ok: false, field, message: `must be a whole number from ${range.min} to ${range.max}` }
      }
      next[field] = value
    }
  }
  const retryProblem = retryDelaysProblem(next)
  if (retryProblem) return { ok: false, field: 'retryMaxMs', message: retryProblem }
  return { ok: true, settings: next }
}

export class LiveSettings {
  private current: EditableSettings
  private constructor(
    private readonly units: UnitRunner,
    /** The settings as the configuration resolved them, before any saved change. */
    private readonly defaults: EditableSettings,
    /** The settings the environment set: they stay as set. */
    readonly pinned: readonly EditableSetting[],
    /** The saved settings as last read, to notice another process's change (the CLI's). */
    private lastSaved = '{}',
  ) {
    this.current = defaults
  }

  /** The settings as saved over `defaults` (the configuration's); `pinned` (the environment's) stay as they are. */
  static async open(
    units: UnitRunner,
    defaults: EditableSettings,
    pinned: readonly EditableSetting[],
  ): Promise<LiveSettings> {
    const settings = new LiveSettings(units, defaults, pinned)
    settings.current = settings.loaded(await settings.savedText())
    return settings
  }

  /** Takes what another process (`printhub settings set`) saved meanwhile; true when the settings changed. */
  async reload(): Promise<boolean> {
    const raw = await this.savedText()
    if (raw === this.lastSaved) return false
    const loaded = this.loaded(raw)
    if (JSON.stringify(loaded) === JSON.stringify(this.current)) return false
    this.current = loaded
    return true
  }

  get values(): Readonly<EditableSettings> {
    return this.current
  }

  /**
   * Changes the settings given (checked first: none changes when one is wrong), saved with the audit log's entry of
   * those whose value changed. Taken at once (another change meanwhile starts from this one); given back when it
   * cannot be saved.
   */
  async update(change: Partial<Record<EditableSetting, unknown>>, actor: Actor): Promise<SettingsOutcome> {
    const outcome = check(this.current, change, this.pinned)
    if (!outcome.ok) return outcome
    const before = { current: this.current, lastSaved: this.lastSaved }
    const changed = changeInWords(this.current, outcome.settings)
    this.current = outcome.settings
    const saved = Object.fromEntries(
      Object.entries(this.current).filter(([field]) => !this.pinned.includes(field as EditableSetting)),
    )
    const text = JSON.stringify(saved)
    this.lastSaved = text
    try {
      await this.units.write(function* (db) {
        yield* db.settings.set(STORE_KEY, text)
        if (changed !== undefined) yield* recordedChange(db, { actor, action: 'settings.set', target: changed })
      })
    } catch (error) {
      this.current = before.current
      this.lastSaved = before.lastSaved
      throw error
    }
    return outcome
  }

  private async savedText(): Promise<string> {
    return (await this.units.read((db) => db.settings.get(STORE_KEY))) ?? '{}'
  }

  /**
   * The saved settings over the configuration's; saved ones that no longer pass (a pinned one, a narrowed range) are
   * left out.
   */
  private loaded(raw: string): EditableSettings {
    this.lastSaved = raw
    const loaded = check(this.defaults, this.saved(raw), this.pinned)
    return loaded.ok ? loaded.settings : this.defaults
  }

  private saved(raw: string): Partial<EditableSettings> {
    try {
      const parsed: unknown = JSON.parse(raw)
      if (typeof parsed !== 'object' || parsed === null) return {}
      return Object.fromEntries(
        Object.entries(parsed).filter(([field]) => !this.pinned.includes(field as EditableSetting)),
      )
    } catch {
      return {}
    }
  }
}
