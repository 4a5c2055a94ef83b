// The health result: the hub answers, and (with ok: false, a 503 and a reason) when it cannot take
// new jobs because its disk is full.
import { boolean, object, optional, type Rule, string } from './rules.ts'

export interface HealthResult {
  ok: boolean
  service: string
  /** Why the hub is not ok, for people. */
  reason?: string
}

export const healthRule: Rule<HealthResult> = object({
  ok: boolean(),
  service: string({ min: 1, max: 256 }),
  reason: optional(string({ min: 1, max: 1_024 })),
})
