// The settings the dashboard changes while the hub runs, for technicians. Their ranges are the
// hub's own settings' (domain/settings.ts, floor 1, which also bounds the same settings given in
// the environment): the protocol cannot import them, so the rules here are made from the ranges
// they are given (`settingsRules`), by the admin API and its OpenAPI document. The names and types
// of the settings are the contract's, here; domain/settings.ts names them after these.
import { brandNameRule } from '../discovery.ts'
import { array, type Infer, integer, object, oneOf, optional, type Rule, string } from '../rules.ts'
import { type AdminOperation, json } from './contract.ts'

export const SETTINGS_BODY_BYTES = 4_096

/** The settings that are numbers, each with its range. */
export const NUMERIC_SETTINGS = [
  'retryInitialMs',
  'retryMaxMs',
  'maxOpenJobsPerProject',
  'retentionDays',
  'historyMbPerProject',
  'minFreeMb',
  'backupKeep',
  'clusterLeaseSeconds',
] as const
export type NumericSetting = (typeof NUMERIC_SETTINGS)[number]
/** Every setting the dashboard changes: the server's name, the backup directory, and the numbers. */
export const SETTING_NAMES = ['serverName', ...NUMERIC_SETTINGS, 'backupDir'] as const
export type SettingName = (typeof SETTING_NAMES)[number]

/** The hub's bounds of the settings, from domain/settings.ts. */
export interface SettingBounds {
  ranges: Readonly<Record<NumericSetting, { min: number; max: number }>>
  maxBackupDirLength: number
}

/** The settings' values with their own rules: the server's name as discovery says it, a directory or nothing. */
function settingRules({ ranges, maxBackupDirLength }: SettingBounds) {
  return {
    serverName: brandNameRule,
    retryInitialMs: integer(ranges.retryInitialMs),
    retryMaxMs: integer(ranges.retryMaxMs),
    maxOpenJobsPerProject: integer(ranges.maxOpenJobsPerProject),
    retentionDays: integer(ranges.retentionDays),
    historyMbPerProject: integer(ranges.historyMbPerProject),
    minFreeMb: integer(ranges.minFreeMb),
    /** Where the hub writes a backup every day (an absolute path); empty: no scheduled backups. */
    backupDir: string({ max: maxBackupDirLength }),
    backupKeep: integer(ranges.backupKeep),
    /** How long a node of a cluster holds an agent or a printer without renewing it (one hub: unused). */
    clusterLeaseSeconds: integer(ranges.clusterLeaseSeconds),
  }
}

type SettingRules = ReturnType<typeof settingRules>
export type HubSettings = { [K in SettingName]: Infer<SettingRules[K]> }
export type SettingsChange = Partial<HubSettings>

/**
 * The rules of the settings' answer and of a change (the settings to change, any of them). The
 * hub checks a change with services/live-settings.ts, in its own words (a setting the environment
 * pins, the longest retry delay at least the first); this rule says the same shape and ranges.
 */
export function settingsRules(bounds: SettingBounds) {
  const rules = settingRules(bounds)
  const change = Object.fromEntries(Object.entries(rules).map(([name, rule]) => [name, optional<unknown>(rule)]))
  return {
    change: object(change) as Rule<SettingsChange>,
    answer: object({
      settings: object(rules),
      /** The settings the hub's environment sets: they stay as set. */
      pinned: array(oneOf(SETTING_NAMES), { max: SETTING_NAMES.length, unique: true }),
    }),
  }
}
export type SettingsAnswer = Infer<ReturnType<typeof settingsRules>['answer']>

export function settingsOperations(bounds: SettingBounds): AdminOperation[] {
  const rules = settingsRules(bounds)
  const answer = json(rules.answer, 'The settings, and those the environment sets')
  return [
    {
      method: 'GET',
      path: '/settings',
      operationId: 'getSettings',
      summary: 'The settings the dashboard changes while the hub runs',
      role: 'technician',
      answers: { 200: answer },
      errors: [],
    },
    {
      method: 'PUT',
      path: '/settings',
      operationId: 'updateSettings',
      summary: 'Change settings (any of them): they apply at once and are kept',
      role: 'technician',
      body: { rule: rules.change, maxBytes: SETTINGS_BODY_BYTES },
      answers: { 200: answer },
      errors: [],
    },
  ]
}
