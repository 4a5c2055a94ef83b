// The body of POST /v1/projects/:projectId/jobs.
import { copiesProblem, documentRule, MAX_COPIES } from './document.ts'
import {
  EXPIRES_IN_MS,
  MAX_ATTEMPTS,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_METADATA_ENTRIES,
  MAX_METADATA_KEY_LENGTH,
  MAX_METADATA_VALUE_LENGTH,
  MAX_PRINTER_ID_LENGTH,
} from './limits.ts'
import { type Infer, integer, nullable, object, optional, record, refine, string } from './rules.ts'

export const metadataRule = record(
  string({ min: 1, max: MAX_METADATA_KEY_LENGTH }),
  string({ max: MAX_METADATA_VALUE_LENGTH }),
  {
    maxEntries: MAX_METADATA_ENTRIES,
  },
)

export const createJobRule = refine(
  object({
    printerId: string({ min: 1, max: MAX_PRINTER_ID_LENGTH }),
    idempotencyKey: string({ min: 1, max: MAX_IDEMPOTENCY_KEY_LENGTH }),
    document: documentRule,
    metadata: optional(nullable(metadataRule)),
    expiresInMs: optional(integer(EXPIRES_IN_MS)),
    maxAttempts: optional(integer(MAX_ATTEMPTS)),
    /** A printhub extension: the document printed this many times, a cut between, as one job. */
    copies: optional(integer({ min: 1, max: MAX_COPIES })),
  }),
  (input) => {
    const problem = input.copies === undefined ? undefined : copiesProblem(input.document, input.copies)
    return problem && [{ path: 'copies', message: problem }]
  },
)

export type CreateJobInput = Infer<typeof createJobRule>

/** The body of POST /v1/projects/:projectId/jobs/:jobId/reprint: the reprint's own idempotency key. */
export const reprintJobRule = object({ idempotencyKey: string({ min: 1, max: MAX_IDEMPOTENCY_KEY_LENGTH }) })
