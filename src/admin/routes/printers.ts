// Printers: the list with their states, adding one (to the hub, or a paired agent's), editing,
// removing, a test page, the last receipt, the status history; what is plugged in; the models;
// printers that poll the hub, and adopting one.
import { ApiError, conflict, invalidField, notFound } from '../../http/errors.ts'
import { submittedJob } from '../../http/job-outcomes.ts'
import { readValidBody } from '../../http/json-body.ts'
import { PROFILES } from '../../profiles/catalog.ts'
import { EXPIRES_IN_MS, MAX_ATTEMPTS } from '../../protocol/limits.ts'
import { integer, nullable, object, oneOf, optional, string } from '../../protocol/rules.ts'
import { identifier } from '../../protocol/values.ts'
import { MAX_CONNECTION_LENGTH } from '../../services/printer-settings.ts'
import {
  type AddPrinterOutcome,
  addHubPrinter,
  adoptPollingPrinter,
  assignAgentPrinter,
  type ChangePrinterOutcome,
  changePrinter,
} from '../../services/printers.ts'
import { testPage } from '../../services/test-page.ts'
import type { PrinterRecord } from '../../store/printers.ts'
import type { AdminContext } from '../context.ts'
import { receiptImage } from '../receipt-image.ts'
import { adminRouter, STAFF_READS } from '../router.ts'

const MAX_BODY = 8_192
const HISTORY_LIMIT = 50
const uri = string({ min: 1, max: MAX_CONNECTION_LENGTH })
const NO_PRINTER = 'There is no such printer (it may have been removed).'
/** A test page that has not printed within this long is of no use any more. */
const TEST_PAGE_EXPIRES_IN_MS = EXPIRES_IN_MS.min * 6

const newPrinterRule = object({
  projectId: identifier,
  id: string({ min: 0, max: 128 }),
  name: optional(nullable(string({ min: 0, max: 256 }))),
  /** A printer the hub drives: how it is attached. */
  connection: optional(uri),
  profile: optional(string({ min: 1, max: 64 })),
  width: optional(integer({ min: 0, max: 1_000 })),
  /** Or a paired agent's printer. */
  agentId: optional(identifier),
  agentPrinterId: optional(identifier),
})

const adoptionRule = object({
  /** Its MAC address (CloudPRNT) or ID (Epson Server Direct Print), and which of the two when it could be either. */
  printer: string({ min: 1, max: 64 }),
  kind: optional(oneOf(['cloudprnt', 'epson-sdp'] as const)),
  projectId: identifier,
  id: string({ min: 0, max: 128 }),
  name: optional(nullable(string({ min: 0, max: 256 }))),
  profile: optional(string({ min: 1, max: 64 })),
  width: optional(integer({ min: 0, max: 1_000 })),
})

const printerChangeRule = object({
  name: optional(nullable(string({ min: 0, max: 256 }))),
  connection: optional(uri),
  profile: optional(string({ min: 1, max: 64 })),
  width: optional(integer({ min: 0, max: 1_000 })),
})

/** An add or change that did not happen, as the admin API answers it. */
function printerError(
  outcome: Exclude<AddPrinterOutcome | ChangePrinterOutcome, { kind: 'added' | 'changed' }>,
): ApiError {
  switch (outcome.kind) {
    case 'invalid':
      return invalidField(
        outcome.problem.field,
        outcome.problem.message,
        `The printer's ${outcome.problem.field} ${outcome.problem.message}.`,
      )
    case 'unknown_project':
      return invalidField('projectId', 'is not a project', 'There is no such project.')
    case 'taken':
      return conflict('This project already has a printer with that ID; choose another.', [
        { path: 'id', message: 'is taken in this project' },
      ])
    case 'no_builtin_agent':
      return new ApiError('server_error', "The hub's built-in agent is not set up.")
    case 'unknown_agent':
      return invalidField('agentId', 'is not a paired agent', 'There is no such paired agent.')
    case 'not_reported':
      return invalidField(
        'agentPrinterId',
        'is not reported by the agent',
        'That agent has not reported such a printer; is it connected?',
      )
    case 'unknown_printer':
      return notFound(NO_PRINTER)
    case 'connection_set_by_agent':
      return invalidField(
        'connection',
        'is set by the agent',
        "This printer is attached to a paired agent: change its connection on that agent's machine.",
      )
    case 'mac_taken':
      return conflict(`This printer is adopted already, as "${outcome.printer.remoteId}".`, [
        { path: 'printer', message: 'is adopted already' },
      ])
  }
}

export function printerRoutes(context: AdminContext) {
  const { store, services } = context
  const printerOr404 = (id: string): PrinterRecord => {
    const printer = store.printers.get(id)
    if (!printer) throw notFound(NO_PRINTER)
    return printer
  }
  const view = (id: string) => context.board.views().find((p) => p.id === id)!

  return (
    adminRouter(services, STAFF_READS)
      .get('/printers', () => ({ printers: context.board.views() }))
      .get('/printers/detect', () => context.detect())
      .get('/profiles', () => ({
        profiles: PROFILES.map(({ id, name, paperWidths, defaultWidth, commandSet }) => ({
          id,
          name,
          paperWidths,
          defaultWidth,
          commandSet,
        })),
      }))
      .post(
        '/printers',
        async ({ request, set }) => {
          const { projectId, agentId, agentPrinterId, connection, ...settings } = await readValidBody(
            request,
            newPrinterRule,
            MAX_BODY,
          )
          const outcome =
            agentId !== undefined || agentPrinterId !== undefined
              ? assignAgentPrinter(store, {
                  projectId,
                  agentId: agentId ?? '',
                  agentPrinterId: agentPrinterId ?? '',
                  ...settings,
                })
              : addHubPrinter(
                  store,
                  projectId,
                  { ...settings, connection: connection ?? '' },
                  context.printerConfinement(),
                )
          if (outcome.kind !== 'added') throw printerError(outcome)
          context.board.recordAgent(outcome.printer.agentId)
          set.status = 201
          return { printer: view(outcome.printer.id) }
        },
        { parse: 'none' },
      )
      // Printers that poll the hub (CloudPRNT, Epson Server Direct Print): those seen, adopted or waiting for a
      // technician to adopt them.
      .get('/printers/polling', () => ({ printers: context.pollingPrinters() }))
      .post(
        '/printers/adopt',
        async ({ request, set }) => {
          const { projectId, ...adoption } = await readValidBody(request, adoptionRule, MAX_BODY)
          const outcome = adoptPollingPrinter(store, projectId, adoption, context.printerConfinement())
          if (outcome.kind !== 'added') throw printerError(outcome)
          context.board.recordAgent(outcome.printer.agentId)
          set.status = 201
          return { printer: view(outcome.printer.id) }
        },
        { parse: 'none' },
      )
      .patch(
        '/printers/:id',
        async ({ request, params }) => {
          const outcome = changePrinter(
            store,
            params.id,
            await readValidBody(request, printerChangeRule, MAX_BODY),
            context.printerConfinement(),
          )
          if (outcome.kind !== 'changed') throw printerError(outcome)
          return { printer: view(outcome.printer.id) }
        },
        { parse: 'none' },
      )
      .delete('/printers/:id', ({ params }) => {
        if (!store.printers.remove(params.id)) throw notFound(NO_PRINTER)
        return { removed: true }
      })
      .post('/printers/:id/test', async ({ params, set }) => {
        const printer = printerOr404(params.id)
        const document = testPage(
          { id: printer.remoteId, connection: printer.connection, profile: printer.profile, width: printer.width },
          context.lan(),
          view(printer.id).state,
          new Date(context.now()),
        )
        const created = submittedJob(
          await context.jobs.submit({
            projectId: printer.projectId,
            printerId: printer.id,
            idempotencyKey: `test-page-${crypto.randomUUID()}`,
            document,
            metadata: { printhub: 'test-page' },
            expiresInMs: TEST_PAGE_EXPIRES_IN_MS,
            maxAttempts: MAX_ATTEMPTS.min,
          }),
        )
        set.status = 202
        return created
      })
      .get('/printers/:id/history', ({ params }) => {
        const printer = printerOr404(params.id)
        return { states: store.printerStates.history(printer.agentId, printer.agentPrinterId, HISTORY_LIMIT) }
      })
      .get('/printers/:id/last-receipt.png', async ({ params }) => {
        const printer = printerOr404(params.id)
        const job = store.jobs.lastCompleted(printer.id)
        const document = job && store.jobs.document(job.id)
        if (!job || !document) throw notFound('This printer has not printed anything yet.')
        return new Response(await receiptImage(context, job.id, document, printer), {
          headers: { 'content-type': 'image/png', 'x-job-id': job.id },
        })
      })
  )
}
