// The health result: liveness only.
import { boolean, object, type Rule, string } from './rules.ts'

export interface HealthResult {
  ok: boolean
  service: string
}

export const healthRule: Rule<HealthResult> = object({ ok: boolean(), service: string({ min: 1, max: 256 }) })
