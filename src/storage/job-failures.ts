// The failures a store writes by itself, the same in both: a job whose time ran out, and the jobs of an agent that
// will never report on them (revoked, or gone past their time).
import { failure } from '../protocol/failures.ts'

/** The failure an expired job records. */
export const EXPIRED = failure('job.expired', 'The job expired before it reached the printer.')

export const AGENT_REVOKED = failure(
  'job.recovery_uncertain',
  'The agent that had this job was revoked before it said how the job ' +
    'ended; it may have printed. Check the printer and reprint if needed.',
)

export const AGENT_AWAY = failure(
  'job.recovery_uncertain',
  'The agent that had this job went away and has not come back since the ' +
    'job expired; it may have printed. Check the printer and reprint ' +
    'if needed.',
)

export const PRINTER_TAKEN_OVER = failure(
  'job.recovery_uncertain',
  'The node of the cluster that was printing this job stopped before it said how the job ended; it may have printed. ' +
    'Check the printer and reprint if needed.',
)

/**
 * The failures the hub's side writes when it did not hear from the agent (it went away, it did not confirm in time):
 * guesses that the agent may never have seen the attempt, never its word that nothing printed.
 */
export const GUESSED_FAILURES = ['agent.disconnected', 'agent.ack_timeout'] as const
