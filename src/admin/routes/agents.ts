// Agents and pairing: the paired agents with their printers, revoking one, and a pairing code to
// pair the next (with a QR code of the command that uses it; printed on a printer when asked).
import { conflict, invalidField, notFound } from '../../http/errors.ts'
import { submittedJob } from '../../http/job-outcomes.ts'
import { readValidBody } from '../../http/json-body.ts'
import { PAIRING_CODE_TTL_MS } from '../../protocol/pairing.ts'
import {
  type AdminAgent,
  type AgentRecordView,
  PAIRING_BODY_BYTES,
  type PairingCodeAnswer,
  pairingCodeRequestRule,
} from '../../protocol/admin/agents.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, TECHNICIAN } from '../router.ts'

export function agentRoutes(context: AdminContext) {
  const { services } = context
  return adminRouter(context.services, TECHNICIAN)
    .get('/agents', async (): Promise<{ agents: AdminAgent[] }> => {
      const reported = await services.agents.reportedPrinters()
      const live = await context.liveness()
      const builtin = (await services.agents.builtin())?.id
      return {
        agents: (await services.agents.list()).map((agent) => ({
          ...agent,
          online: live.agentOnline(agent.id, agent.id === builtin),
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
    .post('/agents/:id/revoke', async ({ params, actor }): Promise<{ agent: AgentRecordView }> => {
      const outcome = await services.agents.revoke(actor, params.id)
      if (outcome.kind === 'unknown') throw notFound('There is no such agent.')
      if (outcome.kind === 'builtin')
        throw conflict("The hub's built-in agent cannot be revoked; remove its printers instead.")
      if (outcome.kind === 'already_revoked') throw conflict('This agent is already revoked.')
      return { agent: outcome.agent }
    })
    .post(
      '/pairing-codes',
      async ({ request, set, actor }): Promise<PairingCodeAnswer> => {
        const body = await readValidBody(request, pairingCodeRequestRule, PAIRING_BODY_BYTES)
        const outcome = await services.agents.createPairingCode(actor, {
          ttlMs: (body.ttlSeconds ?? PAIRING_CODE_TTL_MS.default / 1000) * 1000,
          serverUrl: context.lan().url,
          printOn: body.printOn,
        })
        if (outcome.kind === 'unknown_printer')
          throw invalidField('printOn', 'is not a printer', 'There is no such printer to print the code on.')
        const { code, expiresAt, printed } = outcome
        // The hub's address was given: the answer has the command that uses the code.
        const command = outcome.command!
        set.status = 201
        return {
          code,
          expiresAt,
          command,
          qrSvg: (await import('@paulmillr/qr')).encodeQR(command, 'svg'),
          printed: printed && submittedJob(printed).job,
        }
      },
      { parse: 'none' },
    )
}
