// What each of the doctor's checks answers: a verdict and, in plain words, what was found and what to do.
export type Verdict = 'ok' | 'warn' | 'fail'

export interface Finding {
  check: string
  verdict: Verdict
  /** What was found, and what to do when it is not ok. */
  detail: string
}
