// Star CloudPRNT as printhub speaks it: the printer polls `POST /cloudprnt` with its status as
// JSON, fetches a job with `GET /cloudprnt?mac=…&type=…&token=…` and confirms it with
// `DELETE /cloudprnt?mac=…&code=…&token=…` (or a GET with `delete`, when told so). A poll body may
// carry fields printhub does not read (barcode readers, displays, newer firmware's additions):
// they are let be; the fields it reads are checked here, once.

export const CLOUDPRNT_PATH = '/cloudprnt'

/** The media types printhub serves jobs as, most preferred first. */
export const CLOUDPRNT_MEDIA_TYPES = ['application/vnd.star.starprnt', 'image/png'] as const
export type CloudPrntMediaType = (typeof CLOUDPRNT_MEDIA_TYPES)[number]

/** What printhub asks a printer about itself once (the answers show on the dashboard). */
export const CLOUDPRNT_CLIENT_ACTIONS = ['ClientType', 'ClientVersion', 'PageInfo', 'GetPollInterval'] as const
export type CloudPrntClientAction = (typeof CLOUDPRNT_CLIENT_ACTIONS)[number]

/** The largest poll body printhub reads (a poll is a few hundred bytes; a scanner's burst a few KB). */
export const MAX_POLL_BYTES = 16_384
/** The longest value of a field printhub reads or keeps from a poll. */
const MAX_FIELD = 256
const MAX_ACTIONS = 16

/** A poll, as far as printhub reads it. */
export interface CloudPrntPoll {
  statusCode: string
  printerMAC: string
  status: string | null
  printingInProgress: boolean
  jobToken: string | null
  /** Answers to what printhub asked in its last answer (`clientAction` results), by request. */
  clientAction: { request: string; result: unknown }[]
}

/** printhub's answer to a poll. */
export interface CloudPrntPollAnswer {
  jobReady: boolean
  mediaTypes?: CloudPrntMediaType[]
  jobToken?: string
  clientAction?: { request: CloudPrntClientAction; options: string }[]
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string }

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function text(body: Record<string, unknown>, key: string, required: boolean): Parsed<string | null> {
  const value = body[key]
  if (value === undefined || value === null)
    return required ? { ok: false, message: `${key} is required` } : { ok: true, value: null }
  if (typeof value !== 'string') return { ok: false, message: `${key} must be a string` }
  if (value.length > MAX_FIELD) return { ok: false, message: `${key} must be at most ${MAX_FIELD} characters long` }
  return { ok: true, value }
}

/** Reads a poll body; a message naming the field when it is not one. */
export function parsePoll(body: unknown): Parsed<CloudPrntPoll> {
  if (!isObject(body)) return { ok: false, message: 'the poll must be a JSON object' }
  const statusCode = text(body, 'statusCode', true)
  if (!statusCode.ok) return statusCode
  const printerMAC = text(body, 'printerMAC', true)
  if (!printerMAC.ok) return printerMAC
  const status = text(body, 'status', false)
  if (!status.ok) return status
  const jobToken = text(body, 'jobToken', false)
  if (!jobToken.ok) return jobToken
  const printing = body.printingInProgress
  if (printing !== undefined && printing !== null && typeof printing !== 'boolean')
    return { ok: false, message: 'printingInProgress must be true or false' }
  const actions = body.clientAction ?? []
  if (!Array.isArray(actions)) return { ok: false, message: 'clientAction must be a list' }
  if (actions.length > MAX_ACTIONS)
    return { ok: false, message: `clientAction must have at most ${MAX_ACTIONS} answers` }
  const clientAction: CloudPrntPoll['clientAction'] = []
  for (const action of actions) {
    if (!isObject(action) || typeof action.request !== 'string' || action.request.length > MAX_FIELD)
      return { ok: false, message: 'each clientAction answer must be an object with a request name' }
    clientAction.push({ request: action.request, result: action.result })
  }
  return {
    ok: true,
    value: {
      statusCode: statusCode.value!,
      printerMAC: printerMAC.value!,
      status: status.value,
      printingInProgress: printing === true,
      jobToken: jobToken.value,
      clientAction,
    },
  }
}

/** What a printer said of its page (the `PageInfo` answer), all in its own strings. */
export interface PageInfo {
  paperWidth: string
  printWidth: string
  horizontalResolution: string
  verticalResolution: string
}

/** A `PageInfo` answer, when it is one. */
export function pageInfoOf(result: unknown): PageInfo | undefined {
  if (!isObject(result)) return undefined
  const keys = ['paperWidth', 'printWidth', 'horizontalResolution', 'verticalResolution'] as const
  if (!keys.every((key) => typeof result[key] === 'string' && (result[key] as string).length <= 16)) return undefined
  return Object.fromEntries(keys.map((key) => [key, result[key]])) as unknown as PageInfo
}
