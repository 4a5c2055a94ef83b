// What an agent's frames say of its jobs (received, submitted, failed, and printhub's completed and
// cancelled), as the job reports the session registry hears: times in milliseconds, failures in
// printhub's family of codes.
import type { PrinthubAgentMessage } from '../protocol/extensions.ts'
import { reportedFailure } from '../protocol/failures.ts'
import type { JobReport } from './session-types.ts'

export type JobReportMessage = Extract<
  PrinthubAgentMessage,
  {
    type:
      | 'agent.job_received'
      | 'agent.job_submitted'
      | 'agent.job_failed'
      | 'printhub.job_completed'
      | 'printhub.job_cancelled'
  }
>

export function jobReport(message: JobReportMessage): JobReport {
  switch (message.type) {
    case 'agent.job_received':
      return { kind: 'received', jobId: message.payload.jobId, receivedAt: Date.parse(message.payload.receivedAt) }
    case 'agent.job_submitted':
      return {
        kind: 'submitted',
        jobId: message.payload.jobId,
        printerId: message.payload.printerId,
        submittedAt: Date.parse(message.payload.submittedAt),
      }
    case 'agent.job_failed':
      return { kind: 'failed', jobId: message.payload.jobId, failure: reportedFailure(message.payload.error) }
    case 'printhub.job_completed': {
      const { jobId, completedAt, submittedAt } = message.payload
      return {
        kind: 'completed',
        jobId,
        completedAt: Date.parse(completedAt),
        submittedAt: submittedAt === undefined ? undefined : Date.parse(submittedAt),
      }
    }
    case 'printhub.job_cancelled':
      return { kind: 'cancelled', jobId: message.payload.jobId }
  }
}
