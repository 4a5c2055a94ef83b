// @printhub/client: a typed, dependency-free client for the printhub print job service.
export { PrintHubClient } from './client.ts'
export { JobsApi, type JobListFilter } from './jobs-api.ts'
export { PrintersApi } from './printers-api.ts'
export type { RequestOptions } from './request.ts'
export { WebhooksApi } from './webhooks-api.ts'
export type { WebhookView } from '../protocol/webhooks.ts'
export { CLIENT_DEFAULTS, type PrintHubClientOptions } from './config.ts'
export {
  ApiError,
  ConfigurationError,
  NetworkError,
  PrintHubError,
  ResponseError,
  TimeoutError,
  ValidationError,
  WebhookVerificationError,
} from './errors.ts'
export { verifyWebhook, type WebhookDelivery, type WebhookHeaders } from './webhooks.ts'
export type { WebhookRefusal } from '../protocol/webhook-signature.ts'
export { API_ERROR_CODES, type ApiErrorCode } from '../protocol/api-errors.ts'
export type { DiscoveryDocument } from '../protocol/discovery.ts'
export type { PrintDocument, Section, PaperWidth } from '../protocol/document.ts'
export type { HealthResult } from '../protocol/health.ts'
export {
  JOB_STATES,
  type Job,
  type JobState,
  type CreateJobResponse,
  type ListJobsResponse,
  type PagedJobsResponse,
  type ReprintJobResponse,
} from '../protocol/job.ts'
export { PROJECT_PRINTER_STATES, type ProjectPrinter, type ProjectPrinterState } from '../protocol/project-printer.ts'
export {
  EVENT_TYPES,
  type EventType,
  type ProjectEvent,
  type JobCreatedEvent,
  type JobStateChangedEvent,
  type JobMovedEvent,
  type PrinterStateChangedEvent,
} from '../protocol/events.ts'
export type { EventStreamOptions, StreamItem } from './events.ts'
export type { CreateJobInput } from '../protocol/job-request.ts'
export { FAILURE_CODES, type FailureCode } from '../protocol/failures.ts'
export type { PairingRequest, PairingResponse } from '../protocol/pairing.ts'
export type { Issue } from '../protocol/rules.ts'
