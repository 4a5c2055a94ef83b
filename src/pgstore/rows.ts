// What PostgreSQL's client answers, as the records' values: its bigint (times in milliseconds, counters) comes as
// text, and is a number here; a time is shown as the SQLite store shows it (storage/time.ts).
import { iso } from '../storage/time.ts'

/** A bigint column's value (text, from the client) as a number. */
export const int = (value: string | number): number => (typeof value === 'number' ? value : Number(value))

/** A time column's value as ISO 8601 UTC. */
export const time = (value: string | number): string => iso(int(value))

/** The same, or null. */
export const timeOrNull = (value: string | number | null): string | null => (value === null ? null : time(value))
