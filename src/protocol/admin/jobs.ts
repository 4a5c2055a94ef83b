// Jobs, for everyone signed in: the list with its filters, one job with its timeline, document and
// printer (or a job posted to every printer of a destination, with each printer's job), its
// receipt as a picture, cancelling and reprinting.
import { documentRule } from '../document.ts'
import { JOB_STATES, jobRule, reprintJobResponseRule } from '../job.ts'
import { JOB_LIST_LIMIT, MAX_ATTEMPTS, MAX_MESSAGE_LENGTH, MAX_METADATA_VALUE_LENGTH } from '../limits.ts'
import { array, boolean, type Infer, integer, nullable, object, oneOf, string } from '../rules.ts'
import { timestamp } from '../values.ts'
import { type AdminOperation, type AdminQueryParameter, either, json, MAX_LISTED, recordId } from './contract.ts'
import { MAX_DESTINATION_PRINTERS } from '../destinations.ts'

const anyText = { type: 'string', maxLength: 256 }
/** The job list's filters; an empty value is no filter. */
export const JOB_LIST_QUERY: Record<string, AdminQueryParameter> = {
  project: { schema: anyText, description: "Only this project's jobs (its ID)." },
  printer: {
    schema: anyText,
    description: "Only this printer's jobs (its record ID); with fanOut, the parents with a job on it.",
  },
  state: { schema: { enum: [...JOB_STATES, ''] }, description: "Only jobs in this state (with fanOut: the parent's)." },
  from: {
    schema: { type: 'string' },
    description: 'Only jobs created at or after this time (e.g. 2026-11-21T18:00:00Z).',
  },
  to: { schema: { type: 'string' }, description: 'Only jobs created before this time.' },
  before: { schema: anyText, description: 'The next page: the jobs older than this job (its ID).' },
  q: {
    schema: { type: 'string', maxLength: MAX_METADATA_VALUE_LENGTH },
    description: 'Only jobs with a metadata value (of any key) that starts with this: an order number, a table.',
  },
  fanOut: {
    schema: { enum: ['true', 'false', ''] },
    description: 'true: the jobs posted to every printer of a destination (the parents) instead.',
  },
}

/** A job's printer as its page links it. */
export const jobPrinterRule = object({
  id: recordId,
  remoteId: string({ min: 1, max: 256 }),
  name: nullable(string({ max: 256 })),
})

/** A step of a job's timeline: a state it went through, with its attempt and, for a failed one, why. */
export const jobEventRule = object({
  at: timestamp,
  state: oneOf(JOB_STATES),
  attempt: integer({ min: 0, max: MAX_ATTEMPTS.max }),
  errorCode: nullable(string({ max: MAX_MESSAGE_LENGTH })),
  errorMessage: nullable(string({ max: MAX_MESSAGE_LENGTH })),
})
export type JobEvent = Infer<typeof jobEventRule>

const jobIds = array(recordId, { max: MAX_LISTED })

/** One job with all the dashboard shows of it. */
export const jobDetailRule = object({
  job: jobRule,
  timeline: array(jobEventRule, { max: MAX_LISTED }),
  printer: nullable(jobPrinterRule),
  /** The document as it was stored; null once retention pruned it. */
  document: nullable(documentRule),
  /** The job this one reprints, and the reprints of it: the link both ways. */
  reprintOf: nullable(recordId),
  reprints: jobIds,
  /** A printer's job of a job posted to every printer of a destination: that job, and the other printers' jobs. */
  fanOut: nullable(
    object({ id: recordId, destination: string({ min: 1, max: 256 }), state: oneOf(JOB_STATES), jobs: jobIds }),
  ),
})
export type AdminJobDetail = Infer<typeof jobDetailRule>

/** A job posted to every printer of a destination: it, and each printer's job with its printer. */
export const fanOutDetailRule = object({
  job: jobRule,
  children: array(object({ job: jobRule, printer: nullable(jobPrinterRule) }), { max: MAX_DESTINATION_PRINTERS }),
})
export type AdminFanOutDetail = Infer<typeof fanOutDetailRule>

export const jobListRule = object({
  jobs: array(jobRule, { max: JOB_LIST_LIMIT }),
  /** Whether there may be older jobs: the next page is `before` the last one's ID. */
  more: boolean(),
})
export type AdminJobList = Infer<typeof jobListRule>

/** A job cancelled at once, or its agent asked to stop it. */
export const cancellationRule = object({ job: jobRule, cancellation: oneOf(['cancelled', 'requested']) })
export type AdminCancellation = Infer<typeof cancellationRule>

export const jobOperations: AdminOperation[] = [
  {
    method: 'GET',
    path: '/jobs',
    operationId: 'listJobs',
    summary: `Jobs, newest first, ${JOB_LIST_LIMIT} at most, with filters`,
    role: 'staff',
    query: JOB_LIST_QUERY,
    answers: { 200: json(jobListRule, 'The jobs, and whether there are more') },
    errors: [400],
  },
  {
    method: 'GET',
    path: '/jobs/:id',
    operationId: 'getJob',
    summary: 'One job, with its timeline, printer and document; or a job posted to every printer of a destination',
    role: 'staff',
    answers: {
      200: json(either(jobDetailRule, fanOutDetailRule), "The job, or the destination's job with its printers' jobs"),
    },
    errors: [404],
  },
  {
    method: 'GET',
    path: '/jobs/:id/preview.png',
    operationId: 'getJobPreview',
    summary: "The job's receipt as its printer would print it, as a picture",
    role: 'staff',
    answers: { 200: { description: 'The picture', mediaType: 'image/png' } },
    errors: [404],
  },
  {
    method: 'POST',
    path: '/jobs/:id/cancel',
    operationId: 'cancelJob',
    summary: 'Cancel a job: at once while it waits, or asked of its agent (cancellation: requested)',
    role: 'staff',
    answers: { 200: json(cancellationRule, 'The job, cancelled or with its cancellation asked for') },
    errors: [404, 409],
  },
  {
    method: 'POST',
    path: '/jobs/:id/reprint',
    operationId: 'reprintJob',
    summary: "Reprint a job: a new job on the same printer under a REPRINT banner with the first print's time",
    role: 'staff',
    answers: { 202: json(reprintJobResponseRule, 'The reprint') },
    errors: [404, 409, 413, 429, 507],
  },
]
