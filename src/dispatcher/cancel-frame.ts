// The frames the dispatcher sends an agent beside its jobs: one that asks it to stop an attempt of a job
// (server.cancel_job), named by its wire ID; one that asks it to read its printers again.
import { newMessageId } from '../gateway/message-ids.ts'

export function cancelFrame(wireId: string, reason: string, now: number) {
  return {
    messageId: newMessageId(),
    sentAt: new Date(now).toISOString(),
    type: 'server.cancel_job' as const,
    payload: { jobId: wireId, reason },
  }
}

/** Asks the agent to read its printers again and say them (server.configuration_invalidated). */
export function configurationInvalidated(now: number) {
  return {
    messageId: newMessageId(),
    sentAt: new Date(now).toISOString(),
    type: 'server.configuration_invalidated' as const,
    payload: { scope: 'printers' as const },
  }
}
