// The admin API's contract (protocol/admin/) as this hub keeps it: its settings' rules made from
// the hub's own bounds of its settings (domain/settings.ts), which the protocol cannot import.
import { EDITABLE_RANGES, MAX_BACKUP_DIR_LENGTH } from '../domain/settings.ts'
import { adminOperations } from '../protocol/admin/index.ts'
import { type SettingBounds, settingsRules } from '../protocol/admin/settings.ts'

export const SETTING_BOUNDS: SettingBounds = { ranges: EDITABLE_RANGES, maxBackupDirLength: MAX_BACKUP_DIR_LENGTH }
/** The rules of the settings' answer and of a change to them. */
export const SETTINGS_RULES = settingsRules(SETTING_BOUNDS)
/** Every operation of the admin API. */
export const ADMIN_OPERATIONS = adminOperations(SETTING_BOUNDS)
