// Printers: the list with their states, adding one (to the hub, or a paired agent's), editing,
// removing, a test page, the last receipt, the status history; what is plugged in; the models;
// printers that poll the hub, and adopting one.
import { ApiError, conflict, invalidField, notFound } from '../../http/errors.ts'
import { submittedJob } from '../../http/job-outcomes.ts'
import { readValidBody } from '../../http/json-body.ts'
import { PROFILES } from '../../profiles/catalog.ts'
import type { CreateJobResponse } from '../../protocol/job.ts'
import {
  adoptionRule,
  type AdminPrinter,
  type DetectedPrinterView,
  newPrinterRule,
  type PollingPrinter,
  PRINTER_BODY_BYTES,
  PRINTER_HISTORY_LIMIT,
  printerChangeRule,
  type PrinterModel,
  type PrinterStateChange,
} from '../../protocol/admin/printers.ts'
import type { PrinterRecord } from '../../domain/records.ts'
import type { AddPrinterOutcome, ChangePrinterOutcome } from '../../services/printers.ts'
import type { AdminContext } from '../context.ts'
import { receiptImage } from '../receipt-image.ts'
import { adminRouter, STAFF_READS } from '../router.ts'

const NO_PRINTER = 'There is no such printer (it may have been removed).'

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
  const { services } = context
  const printerOr404 = async (id: string): Promise<PrinterRecord> => {
    const printer = await services.printers.get(id)
    if (!printer) throw notFound(NO_PRINTER)
    return printer
  }
  const views = async (): Promise<AdminPrinter[]> => services.printers.views(await context.liveness())
  const view = async (id: string): Promise<AdminPrinter> => (await views()).find((p) => p.id === id)!

  return (
    adminRouter(services, STAFF_READS)
      .get('/printers', async (): Promise<{ printers: AdminPrinter[] }> => ({ printers: await views() }))
      .get(
        '/printers/detect',
        (): Promise<{ printers: DetectedPrinterView[]; usbError: string | null }> => context.detect(),
      )
      .get('/profiles', (): { profiles: PrinterModel[] } => ({
        profiles: PROFILES.map(({ id, name, paperWidths, defaultWidth, commandSet }) => ({
          id,
          name,
          paperWidths: [...paperWidths],
          defaultWidth,
          commandSet,
        })),
      }))
      .post(
        '/printers',
        async ({ request, set, actor }): Promise<{ printer: AdminPrinter }> => {
          const { projectId, agentId, agentPrinterId, connection, ...settings } = await readValidBody(
            request,
            newPrinterRule,
            PRINTER_BODY_BYTES,
          )
          const outcome =
            agentId !== undefined || agentPrinterId !== undefined
              ? await services.printers.assign(actor, {
                  projectId,
                  agentId: agentId ?? '',
                  agentPrinterId: agentPrinterId ?? '',
                  ...settings,
                })
              : await services.printers.add(
                  actor,
                  projectId,
                  { ...settings, connection: connection ?? '' },
                  context.printerConfinement(),
                )
          if (outcome.kind !== 'added') throw printerError(outcome)
          set.status = 201
          return { printer: await view(outcome.printer.id) }
        },
        { parse: 'none' },
      )
      // Printers that poll the hub (CloudPRNT, Epson Server Direct Print): those seen, adopted or waiting for a
      // technician to adopt them.
      .get('/printers/polling', (): { printers: PollingPrinter[] } => ({ printers: context.pollingPrinters() }))
      .post(
        '/printers/adopt',
        async ({ request, set, actor }): Promise<{ printer: AdminPrinter }> => {
          const { projectId, ...adoption } = await readValidBody(request, adoptionRule, PRINTER_BODY_BYTES)
          const outcome = await services.printers.adopt(actor, projectId, adoption, context.printerConfinement())
          if (outcome.kind !== 'added') throw printerError(outcome)
          set.status = 201
          return { printer: await view(outcome.printer.id) }
        },
        { parse: 'none' },
      )
      .patch(
        '/printers/:id',
        async ({ request, params, actor }): Promise<{ printer: AdminPrinter }> => {
          const outcome = await services.printers.change(
            actor,
            params.id,
            await readValidBody(request, printerChangeRule, PRINTER_BODY_BYTES),
            context.printerConfinement(),
          )
          if (outcome.kind !== 'changed') throw printerError(outcome)
          return { printer: await view(outcome.printer.id) }
        },
        { parse: 'none' },
      )
      .delete('/printers/:id', async ({ params, actor }): Promise<{ removed: true }> => {
        if (!(await services.printers.remove(actor, params.id))) throw notFound(NO_PRINTER)
        return { removed: true }
      })
      .post('/printers/:id/test', async ({ params, set, actor }): Promise<CreateJobResponse> => {
        // Its state as the page prints it (none for a printer that is not: the page is not printed).
        const state = (await views()).find((p) => p.id === params.id)?.state ?? 'unknown'
        const outcome = await services.printers.printTestPage(actor, params.id, {
          hub: context.lan(),
          status: () => state,
          at: new Date(context.now()),
        })
        if (outcome.kind === 'no_printer') throw notFound(NO_PRINTER)
        const created = submittedJob(outcome)
        set.status = 202
        return created
      })
      .get('/printers/:id/history', async ({ params }): Promise<{ states: PrinterStateChange[] }> => {
        const printer = await printerOr404(params.id)
        return { states: await services.printers.history(printer, PRINTER_HISTORY_LIMIT) }
      })
      .get('/printers/:id/last-receipt.png', async ({ params }) => {
        const printer = await printerOr404(params.id)
        const last = await services.jobQueries.lastReceipt(printer.id)
        if (!last) throw notFound('This printer has not printed anything yet.')
        const { job, document } = last
        return new Response(await receiptImage(context, job.id, document, printer), {
          headers: { 'content-type': 'image/png', 'x-job-id': job.id },
        })
      })
  )
}
