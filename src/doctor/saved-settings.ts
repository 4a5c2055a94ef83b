// A setting the dashboard or `printhub settings set` saved in a data directory, read without
// changing anything (the database is opened read-only, its schema as it is): what the doctor checks
// against when the hub's environment does not set it.
import { SAVED_SETTINGS_KEY } from '../services/live-settings.ts'
import { StoreInspection } from '../store/inspection.ts'

/** The saved number of setting `name` (e.g. `minFreeMb`); undefined when none is saved or nothing can be read. */
export function savedSetting(dataDir: string, name: string): number | undefined {
  const store = StoreInspection.open(dataDir)
  try {
    const value = (JSON.parse(store?.setting(SAVED_SETTINGS_KEY) ?? '{}') as Record<string, unknown>)[name]
    return typeof value === 'number' ? value : undefined
  } catch {
    return undefined
  } finally {
    store?.close()
  }
}
