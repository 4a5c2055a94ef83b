// The project's printers and their state, for applications (scope printers:read): whether the
// kitchen printer is online before sending it a ticket, or why it is not.
import { Elysia } from 'elysia'
import { notFound } from '../../http/errors.ts'
import { QueryReader } from '../../http/query.ts'
import type { ProjectPrinter } from '../../protocol/project-printer.ts'
import { authenticate } from '../auth.ts'
import type { ApiContext } from '../context.ts'

const PRINTERS_PATH = '/v1/projects/:projectId/printers'

export function printerRoutes({ services, board, now }: ApiContext) {
  return new Elysia()
    .get(PRINTERS_PATH, async ({ request, params }): Promise<{ printers: ProjectPrinter[] }> => {
      await authenticate(services, request, params.projectId, 'printers:read')
      new QueryReader(request.url, []).check()
      return { printers: await board.projectPrinters(params.projectId, now()) }
    })
    .get(`${PRINTERS_PATH}/:printerId`, async ({ request, params }): Promise<{ printer: ProjectPrinter }> => {
      await authenticate(services, request, params.projectId, 'printers:read')
      new QueryReader(request.url, []).check()
      // By its record ID (what jobs carry) or its project-local name (what applications post).
      const printer = (await board.projectPrinters(params.projectId, now())).find(
        (p) => p.id === params.printerId || p.name === params.printerId,
      )
      if (!printer) throw notFound(`This project has no printer "${params.printerId}".`)
      return { printer }
    })
}
