// printhub's extensions to OpenPrinter v1, used only between two printhub ends that recognised each
// other in the handshake: the agent names the product `printhub` in `agent.hello`, the hub names
// itself in `server.hello`'s serverVersion (`printhub/<version>`). A stock OpenPrinter peer never
// receives a frame outside the v1 schema, and a stock agent may not send these. A stock agent is
// never sent a document with printhub's extensions either: it gets the document rendered down to
// OpenPrinter's sections (render/standard-document.ts), or the job fails with
// `agent.extension_unsupported`, naming what no section can carry.
import { printhubWireDocumentRule } from './document.ts'
import { agentMessageRuleWith, envelope, idempotencyKey, serverMessageRuleWith } from './frames.ts'
import { type Infer, object, optional } from './rules.ts'
import { identifier, timestamp } from './values.ts'

export const PRINTHUB_PRODUCT_ID = 'printhub'
const SERVER_VERSION_PREFIX = 'printhub/'

export function printhubServerVersion(version: string): string {
  return SERVER_VERSION_PREFIX + version
}

export function isPrinthubServer(serverVersion: string): boolean {
  return serverVersion.startsWith(SERVER_VERSION_PREFIX)
}

/**
 * The printer confirmed it finished the job (after `agent.job_submitted`, which then means
 * PRINTING rather than COMPLETED). Correlated like the other job reports. With `submittedAt`, it is
 * the job's only report since its receipt: the printer confirmed at once, and the frame says when
 * it took the last byte too (the built-in agent's, agent.ts).
 */
const jobCompleted = envelope(
  object({
    jobId: identifier,
    idempotencyKey,
    printerId: identifier,
    completedAt: timestamp,
    submittedAt: optional(timestamp),
  }),
  'required',
)

/** The agent stopped the job on `server.cancel_job` before submitting it: it will not print. */
const jobCancelled = envelope(object({ jobId: identifier, idempotencyKey, cancelledAt: timestamp }), 'required')

export const printhubAgentMessageRule = agentMessageRuleWith({
  'printhub.job_completed': jobCompleted,
  'printhub.job_cancelled': jobCancelled,
})
export type PrinthubAgentMessage = Infer<typeof printhubAgentMessageRule>

/**
 * What a printhub hub sends a printhub agent: OpenPrinter's frames, with documents that may use
 * printhub's extensions (text size, underline, invert, font; the drawer and buzzer sections).
 */
export const printhubServerMessageRule = serverMessageRuleWith(printhubWireDocumentRule)
