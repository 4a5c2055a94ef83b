// Printers: the list with their states, adding one (to the hub, or a paired agent's), editing,
// removing, a test page, the last receipt, the status history; what is plugged in; the models.
import { connectionOf } from '../../agent/catalog.ts'
import { createJob } from '../../services/jobs.ts'
import { ApiError } from '../../http/errors.ts'
import { readValidBody } from '../../http/json-body.ts'
import { checkPrinterSettings, type PrinterSettingsInput } from '../../services/printer-settings.ts'
import { testPage } from '../../services/test-page.ts'
import { defaultProfileId, PROFILES } from '../../profiles/catalog.ts'
import { EXPIRES_IN_MS, MAX_ATTEMPTS } from '../../protocol/limits.ts'
import { integer, nullable, object, optional, string } from '../../protocol/rules.ts'
import { identifier } from '../../protocol/values.ts'
import type { PrinterRecord } from '../../store/printers.ts'
import type { AdminContext } from '../context.ts'
import { receiptPng } from '../../services/receipt-image.ts'
import { adminRouter } from '../router.ts'

const MAX_BODY = 8_192
const HISTORY_LIMIT = 50
const uri = string({ min: 1, max: 1_024 })

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

const printerChangeRule = object({
  name: optional(nullable(string({ min: 0, max: 256 }))),
  connection: optional(uri),
  profile: optional(string({ min: 1, max: 64 })),
  width: optional(integer({ min: 0, max: 1_000 })),
})

function settingsOrThrow(input: PrinterSettingsInput) {
  const checked = checkPrinterSettings(input)
  if (!checked.ok) throw new ApiError(400, 'invalid_request', `The printer's ${checked.problem.field} ${checked.problem.message}.`, [{ path: checked.problem.field, message: checked.problem.message }])
  return checked.settings
}

export function printerRoutes(context: AdminContext) {
  const { store } = context
  const printerOr404 = (id: string): PrinterRecord => {
    const printer = store.printers.get(id)
    if (!printer) throw new ApiError(404, 'not_found', 'There is no such printer (it may have been removed).')
    return printer
  }
  const view = (id: string) => context.board.views().find((p) => p.id === id)!

  return adminRouter(store)
    .get('/printers', () => ({ printers: context.board.views() }))
    .get('/printers/detect', () => context.detect())
    .get('/profiles', () => ({ profiles: PROFILES.map(({ id, name, paperWidths, defaultWidth }) => ({ id, name, paperWidths, defaultWidth })) }))
    .post(
      '/printers',
      async ({ request, set }) => {
        const body = await readValidBody(request, newPrinterRule, MAX_BODY)
        if (!store.projects.get(body.projectId)) throw new ApiError(400, 'invalid_request', 'There is no such project.', [{ path: 'projectId', message: 'is not a project' }])
        let added: PrinterRecord | undefined
        if (body.agentId !== undefined || body.agentPrinterId !== undefined) {
          const reported = body.agentId && body.agentPrinterId ? store.agents.printer(body.agentId, body.agentPrinterId) : undefined
          if (!reported) throw new ApiError(400, 'invalid_request', 'That agent has not reported such a printer; is it connected?', [{ path: 'agentPrinterId', message: 'is not reported by the agent' }])
          const width = body.width ?? reported.descriptor.capabilities?.mediaWidths[0] ?? 80
          const settings = settingsOrThrow({ id: body.id || reported.printerId, connection: connectionOf(reported.descriptor), profile: body.profile ?? defaultProfileId(width as 58 | 80), width, name: body.name ?? reported.name })
          added = store.printers.add({ projectId: body.projectId, remoteId: settings.id, name: settings.name, connection: settings.connection, profile: settings.profile, width: settings.width, agentId: reported.agentId, agentPrinterId: reported.printerId })
        } else {
          const settings = settingsOrThrow({ id: body.id, connection: body.connection ?? '', profile: body.profile, width: body.width, name: body.name })
          const builtin = store.agents.builtin()!
          added = store.printers.add({ projectId: body.projectId, remoteId: settings.id, name: settings.name, connection: settings.connection, profile: settings.profile, width: settings.width, agentId: builtin.id })
        }
        if (!added) throw new ApiError(409, 'invalid_request', 'This project already has a printer with that ID; choose another.', [{ path: 'id', message: 'is taken in this project' }])
        context.board.recordAgent(added.agentId)
        set.status = 201
        return { printer: view(added.id) }
      },
      { parse: 'none' },
    )
    .patch(
      '/printers/:id',
      async ({ request, params }) => {
        const printer = printerOr404(params.id)
        const body = await readValidBody(request, printerChangeRule, MAX_BODY)
        const builtin = printer.agentId === store.agents.builtin()?.id
        if (!builtin && body.connection !== undefined && body.connection !== printer.connection) {
          throw new ApiError(400, 'invalid_request', "This printer is attached to a paired agent: change its connection on that agent's machine.", [{ path: 'connection', message: 'is set by the agent' }])
        }
        const settings = settingsOrThrow({
          id: printer.remoteId,
          connection: body.connection ?? printer.connection,
          profile: body.profile ?? printer.profile,
          width: body.width ?? printer.width,
          name: body.name === undefined ? printer.name : body.name,
        })
        store.printers.update(printer.id, settings)
        return { printer: view(printer.id) }
      },
      { parse: 'none' },
    )
    .delete('/printers/:id', ({ params }) => {
      if (!store.printers.remove(params.id)) throw new ApiError(404, 'not_found', 'There is no such printer (it may have been removed).')
      return { removed: true }
    })
    .post('/printers/:id/test', async ({ params, set }) => {
      const printer = printerOr404(params.id)
      const document = testPage({ id: printer.remoteId, connection: printer.connection, profile: printer.profile, width: printer.width }, context.lan(), view(printer.id).state, new Date(context.now()))
      const created = await createJob(context, {
        projectId: printer.projectId,
        printerId: printer.id,
        idempotencyKey: `test-page-${crypto.randomUUID()}`,
        document,
        metadata: { printhub: 'test-page' },
        expiresInMs: EXPIRES_IN_MS.min * 6,
        maxAttempts: MAX_ATTEMPTS.min,
      })
      set.status = 202
      return created
    })
    .get('/printers/:id/history', ({ params }) => {
      const printer = printerOr404(params.id)
      return { states: store.printerStates.history(printer.agentId, printer.agentPrinterId, HISTORY_LIMIT) }
    })
    .get('/printers/:id/last-receipt.png', ({ params }) => {
      const printer = printerOr404(params.id)
      const job = store.jobs.lastCompleted(printer.id)
      const document = job && store.jobs.document(job.id)
      if (!job || !document) throw new ApiError(404, 'not_found', 'This printer has not printed anything yet.')
      return new Response(new Uint8Array(receiptPng(document, printer)), { headers: { 'content-type': 'image/png', 'x-job-id': job.id } })
    })
}
