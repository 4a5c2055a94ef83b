// The hints a cluster's nodes send each other through PostgreSQL's NOTIFY, on one channel: a printer has work
// (`printer:ID`), a cancellation was asked (`cancel`), a project has new events (`events:ID`, sent in the
// transaction that wrote them, so delivered once it commits). Hints only: every node also looks by itself.
export const HINTS_CHANNEL = 'printhub_hints'

/** The hint that a project has new events. */
export const eventsHint = (projectId: string): string => `events:${projectId}`
