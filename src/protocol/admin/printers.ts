// Printers: the list with their states, adding one (the hub's own, or a paired agent's), editing,
// removing, a test page, the status history and the last receipt; what is plugged into the hub;
// the printer models; printers that poll the hub (CloudPRNT, Epson Server Direct Print), and
// adopting one.
import { createJobResponseRule } from '../job.ts'
import { PAPER_WIDTHS } from '../document.ts'
import { array, boolean, type Infer, integer, nullable, object, oneOf, optional, type Rule, string } from '../rules.ts'
import { identifier, timestamp } from '../values.ts'
import { type AdminOperation, count, exactly, json, MAX_LISTED, recordId, text } from './contract.ts'

/**
 * What is known of a printer's condition, for people: online, online with its paper running low,
 * or why it cannot print; unknown when it cannot be asked (domain/printer-state.ts names the type).
 */
export const PRINTER_STATES = ['online', 'paper_low', 'paper_out', 'cover_open', 'error', 'offline', 'unknown'] as const
/** The kinds of printers that poll the hub for their jobs (domain/connection-uri.ts names the type). */
export const POLLING_KINDS = ['cloudprnt', 'epson-sdp'] as const
/** The longest connection a printer record keeps. */
export const MAX_CONNECTION_LENGTH = 1_024
export const PRINTER_BODY_BYTES = 8_192
/** The status history lists this many changes, newest first. */
export const PRINTER_HISTORY_LIMIT = 50

const connection = string({ min: 1, max: MAX_CONNECTION_LENGTH })
const settings = {
  name: optional(nullable(string({ min: 0, max: 256 }))),
  profile: optional(string({ min: 1, max: 64 })),
  width: optional(integer({ min: 0, max: 1_000 })),
}

/** A new printer: one the hub drives (`connection`), or a paired agent's (`agentId`, `agentPrinterId`). */
export const newPrinterRule = object({
  projectId: identifier,
  id: string({ min: 0, max: 128 }),
  name: settings.name,
  connection: optional(connection),
  profile: settings.profile,
  width: settings.width,
  agentId: optional(identifier),
  agentPrinterId: optional(identifier),
})

/**
 * A printer that polls, adopted: its MAC address (CloudPRNT) or ID (Epson), and which of the two
 * when it could be either.
 */
export const adoptionRule = object({
  printer: string({ min: 1, max: 64 }),
  kind: optional(oneOf(POLLING_KINDS)),
  projectId: identifier,
  id: string({ min: 0, max: 128 }),
  ...settings,
})

export const printerChangeRule = object({
  name: settings.name,
  connection: optional(connection),
  profile: settings.profile,
  width: settings.width,
})

/** The fields of a printer as the dashboard shows it (the overview shows some of them). */
export const adminPrinterFields = {
  id: recordId,
  projectId: recordId,
  /** The project-local name applications print to, e.g. `kitchen`. */
  remoteId: string({ min: 1, max: 256 }),
  name: nullable(string({ max: 256 })),
  connection: string({ min: 1, max: 4_096 }),
  profile: string({ min: 1, max: 64 }),
  width: oneOf(PAPER_WIDTHS),
  agentId: recordId,
  agentPrinterId: string({ min: 1, max: 256 }),
  createdAt: timestamp,
  state: oneOf(PRINTER_STATES),
  agentName: string({ max: 256 }),
  agentOnline: boolean(),
  /** Driven by the hub itself (the built-in agent), not a paired agent. */
  builtin: boolean(),
  /** Jobs waiting for the printer: not yet with its agent. */
  queue: count,
}
/** A printer as the dashboard shows it: its record, its state now, its agent and its queue. */
export const adminPrinterRule = object(adminPrinterFields)
export type AdminPrinter = Infer<typeof adminPrinterRule>

/** A printer plugged into the hub's machine, as `printhub printers detect` finds it. */
export const detectedPrinterRule = object({
  kind: oneOf(['serial', 'usblp', 'usb']),
  /** The connection URI to add it with. */
  connection: string({ min: 1, max: MAX_CONNECTION_LENGTH }),
  path: nullable(text),
  usb: nullable(
    object({
      vendorId: string({ min: 1, max: 8 }),
      productId: string({ min: 1, max: 8 }),
      serial: nullable(text),
      vendor: nullable(text),
      product: nullable(text),
    }),
  ),
  driver: nullable(text),
  /** The profile of this exact model, or the first of its vendor (a guess), or null. */
  suggestedProfile: nullable(string({ min: 1, max: 64 })),
  suggestion: nullable(oneOf(['model', 'vendor'])),
})
export type DetectedPrinterView = Infer<typeof detectedPrinterRule>

/** A printer model the hub knows (printers/*.json). */
export const printerModelRule = object({
  id: string({ min: 1, max: 64 }),
  name: string({ min: 1, max: 256 }),
  paperWidths: array(oneOf(PAPER_WIDTHS), { min: 1, max: PAPER_WIDTHS.length }),
  defaultWidth: oneOf(PAPER_WIDTHS),
  /** The commands it speaks (`escpos`, `starprnt`). */
  commandSet: string({ min: 1, max: 64 }),
})
export type PrinterModel = Infer<typeof printerModelRule>

const pageInfo = string({ max: 16 })
/** A printer seen polling the hub, adopted or waiting for a technician to adopt it. */
export const pollingPrinterRule = object({
  kind: oneOf(POLLING_KINDS),
  /** What it is known and adopted by: its MAC address (CloudPRNT), its ID (Epson). */
  key: string({ min: 1, max: 64 }),
  address: text,
  adopted: boolean(),
  firstSeenAt: timestamp,
  lastPollAt: timestamp,
  state: oneOf(PRINTER_STATES),
  /** Its status as it last said it, in its own terms. */
  status: text,
  /** Its model and firmware as it says them. */
  model: nullable(text),
  pageInfo: nullable(
    object({
      paperWidth: pageInfo,
      printWidth: pageInfo,
      horizontalResolution: pageInfo,
      verticalResolution: pageInfo,
    }),
  ),
  pollIntervalMs: count,
})
export type PollingPrinter = Infer<typeof pollingPrinterRule>

export const printerStateChangeRule = object({ at: timestamp, state: oneOf(PRINTER_STATES) })
export type PrinterStateChange = Infer<typeof printerStateChangeRule>

const printerAnswer = object({ printer: adminPrinterRule })
const printers = (rule: Rule<unknown>, description: string) =>
  json(object({ printers: array(rule, { max: MAX_LISTED }) }), description)

export const printerOperations: AdminOperation[] = [
  {
    method: 'GET',
    path: '/printers',
    operationId: 'listPrinters',
    summary: "Every project's printers with their state, agent and queue",
    role: 'staff',
    answers: { 200: printers(adminPrinterRule, 'The printers') },
    errors: [],
  },
  {
    method: 'POST',
    path: '/printers',
    operationId: 'addPrinter',
    summary: "Add a printer: one the hub drives (connection) or a paired agent's (agentId, agentPrinterId)",
    role: 'technician',
    body: { rule: newPrinterRule, maxBytes: PRINTER_BODY_BYTES },
    answers: { 201: json(printerAnswer, 'The printer') },
    errors: [409, 500],
  },
  {
    method: 'GET',
    path: '/printers/detect',
    operationId: 'detectPrinters',
    summary: "The printers plugged into the hub's machine (as printhub printers detect)",
    role: 'staff',
    answers: {
      200: json(
        object({ printers: array(detectedPrinterRule, { max: MAX_LISTED }), usbError: nullable(text) }),
        'What was found, and why USB could not be read (null when it could)',
      ),
    },
    errors: [],
  },
  {
    method: 'GET',
    path: '/profiles',
    operationId: 'listProfiles',
    summary: 'The printer models',
    role: 'staff',
    answers: { 200: json(object({ profiles: array(printerModelRule, { max: MAX_LISTED }) }), 'The models') },
    errors: [],
  },
  {
    method: 'GET',
    path: '/printers/polling',
    operationId: 'listPollingPrinters',
    summary: 'The printers seen polling the hub (CloudPRNT, Epson Server Direct Print), most recent first',
    role: 'staff',
    answers: { 200: printers(pollingPrinterRule, 'The printers that poll, adopted or not') },
    errors: [],
  },
  {
    method: 'POST',
    path: '/printers/adopt',
    operationId: 'adoptPrinter',
    summary: "Adopt a printer that polls the hub into a project's printers",
    role: 'technician',
    body: { rule: adoptionRule, maxBytes: PRINTER_BODY_BYTES },
    answers: { 201: json(printerAnswer, 'The printer') },
    errors: [409, 500],
  },
  {
    method: 'PATCH',
    path: '/printers/:id',
    operationId: 'changePrinter',
    summary: "Change a printer's name, model, width (and the connection of the hub's own)",
    role: 'technician',
    body: { rule: printerChangeRule, maxBytes: PRINTER_BODY_BYTES },
    answers: { 200: json(printerAnswer, 'The printer as it is now') },
    errors: [404, 409],
  },
  {
    method: 'DELETE',
    path: '/printers/:id',
    operationId: 'removePrinter',
    summary: 'Remove a printer: applications can no longer print on it',
    role: 'technician',
    answers: { 200: json(object({ removed: exactly(true) }), 'Removed') },
    errors: [404],
  },
  {
    method: 'POST',
    path: '/printers/:id/test',
    operationId: 'printTestPage',
    summary: 'Queue a test page (the hub, its addresses, the model, the status, accented text, a QR code)',
    role: 'technician',
    answers: { 202: json(createJobResponseRule, 'The test page, queued') },
    errors: [404, 413, 429, 507],
  },
  {
    method: 'GET',
    path: '/printers/:id/history',
    operationId: 'getPrinterHistory',
    summary: "The printer's status changes, newest first",
    role: 'staff',
    answers: {
      200: json(
        object({ states: array(printerStateChangeRule, { max: PRINTER_HISTORY_LIMIT }) }),
        'The newest changes of its state',
      ),
    },
    errors: [404],
  },
  {
    method: 'GET',
    path: '/printers/:id/last-receipt.png',
    operationId: 'getLastReceipt',
    summary: 'The last receipt the printer printed, as a picture of what it printed',
    role: 'staff',
    answers: {
      200: { description: 'The picture', mediaType: 'image/png', headers: { 'x-job-id': 'The job it is of' } },
    },
    errors: [404],
  },
]
