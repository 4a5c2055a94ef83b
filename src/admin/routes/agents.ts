// Agents and pairing: the paired agents with their printers, revoking one, and a pairing code to
// pair the next (with a QR code of the command that uses it; printed on a printer when asked).
import { conflict, invalidField, notFound } from '../../http/errors.ts'
import { submittedJob } from '../../http/job-outcomes.ts'
import { readValidBody } from '../../http/json-body.ts'
import type { PaperWidth, PrintDocument } from '../../protocol/document.ts'
import { EXPIRES_IN_MS } from '../../protocol/limits.ts'
import { PAIRING_CODE_TTL_MS } from '../../protocol/pairing.ts'
import { integer, object, optional } from '../../protocol/rules.ts'
import { identifier } from '../../protocol/values.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, TECHNICIAN } from '../router.ts'

const MAX_BODY = 1_024

/** The pairing code on paper, with the command that uses it and its QR code. */
function pairingCodePage(width: PaperWidth, code: string, expiresAt: string, command: string): PrintDocument {
  return {
    width,
    sections: [
      { type: 'text', value: 'Pairing code', align: 'center', bold: true },
      { type: 'text', value: code, align: 'center', bold: true },
      { type: 'text', value: `Valid until ${expiresAt.slice(0, 16).replace('T', ' ')} UTC, once.` },
      { type: 'text', value: 'On the agent machine run:' },
      { type: 'text', value: command },
      { type: 'qr', value: command },
      { type: 'feed', lines: 1 },
      { type: 'cut' },
    ],
  }
}

export function agentRoutes(context: AdminContext) {
  const { store } = context
  return adminRouter(store, TECHNICIAN)
    .get('/agents', () => {
      const reported = store.agents.printers()
      return {
        agents: store.agents.list().map((agent) => ({
          ...agent,
          online: context.isConnected(agent.id),
          printers: reported
            .filter((p) => p.agentId === agent.id)
            .map(({ printerId, name, availability, enabled, descriptor }) => ({
              id: printerId,
              name,
              availability,
              enabled,
              kind: descriptor.kind,
            })),
        })),
      }
    })
    .post('/agents/:id/revoke', ({ params }) => {
      const agent = store.agents.get(params.id)
      if (!agent) throw notFound('There is no such agent.')
      if (agent.builtin) throw conflict("The hub's built-in agent cannot be revoked; remove its printers instead.")
      store.agents.revoke(agent.id)
      context.disconnectAgent(agent.id, 'credential_revoked', 'This agent was revoked.')
      return { agent: store.agents.get(agent.id) }
    })
    .post(
      '/pairing-codes',
      async ({ request, set }) => {
        const body = await readValidBody(
          request,
          object({
            ttlSeconds: optional(integer({ min: PAIRING_CODE_TTL_MS.min / 1000, max: PAIRING_CODE_TTL_MS.max / 1000 })),
            printOn: optional(identifier),
          }),
          MAX_BODY,
        )
        const printer = body.printOn === undefined ? undefined : store.printers.get(body.printOn)
        if (body.printOn !== undefined && !printer)
          throw invalidField('printOn', 'is not a printer', 'There is no such printer to print the code on.')
        const { code, expiresAt } = store.pairingCodes.create(
          (body.ttlSeconds ?? PAIRING_CODE_TTL_MS.default / 1000) * 1000,
        )
        const command = `printhub agent --server ${context.lan().url.replace(/\/$/, '')} --code ${code}`
        let printed = null
        if (printer) {
          const { job } = submittedJob(
            await context.jobs.submit({
              projectId: printer.projectId,
              printerId: printer.id,
              idempotencyKey: `pairing-code-${crypto.randomUUID()}`,
              document: pairingCodePage(printer.width, code, expiresAt, command),
              metadata: { printhub: 'pairing-code' },
              expiresInMs: Math.max(EXPIRES_IN_MS.min, Date.parse(expiresAt) - context.now()),
              maxAttempts: 1,
            }),
          )
          printed = job
        }
        set.status = 201
        return { code, expiresAt, command, qrSvg: (await import('@paulmillr/qr')).encodeQR(command, 'svg'), printed }
      },
      { parse: 'none' },
    )
}
