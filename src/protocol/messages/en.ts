// What people read, in English: the states of tickets and printers as people say them, each
// failure and error code in a sentence with what to do about it, the events, and the dashboard's
// own words. The words are data, in en.json; every language is one such file (de.json), and this
// module gives them their types: the compiler checks here that English names every job state,
// failure code, error code and event, and index.ts that every language has English's shape.
// The codes stay visible beside the words, for technicians.
import type { ApiErrorCode } from '../api-errors.ts'
import type { EventType } from '../events.ts'
import type { FailureCode } from '../failures.ts'
import type { JobState } from '../job.ts'
import english from './en.json'

/** A state in words, with a sign that says it too (never colour alone). */
export interface StateWords {
  word: string
  icon: string
}

/** A failure in words: what happened, and what a person can do (null: nothing to do by hand). */
export interface FailureWords {
  say: string
  do: string | null
}

/** What is known of a printer, in words, with what to do when it needs someone. */
export interface PrinterWords extends StateWords {
  do: string | null
}

/** The parts of a catalog that follow the protocol's own lists: none may be missing. */
interface Complete {
  jobStates: Record<JobState, StateWords>
  printerStates: Record<string, PrinterWords>
  failures: Record<FailureCode, FailureWords>
  errors: Record<ApiErrorCode, string>
  events: Record<EventType, string>
  timeline: Record<JobState | 'created' | 'retry', string>
}

export const en = english satisfies Complete

export type Messages = typeof en
