// The frame that asks an agent to stop an attempt of a job (server.cancel_job), named by its wire ID.
import { newMessageId } from '../gateway/message-ids.ts'

export function cancelFrame(wireId: string, reason: string, now: number) {
  return {
    messageId: newMessageId(),
    sentAt: new Date(now).toISOString(),
    type: 'server.cancel_job' as const,
    payload: { jobId: wireId, reason },
  }
}
