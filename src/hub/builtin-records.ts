// What the built-in agent's ledger (agent/builtin-ledger.ts) reads of its hub's rows: the jobs the
// hub holds with it, and a held job's payload as the dispatcher sends it (the same fields, made
// from what is stored the same way), for a job whose payload the agent did not keep in memory.
import type { HeldByHub, HubRecords } from '../agent/builtin-ledger.ts'
import { documentForAgent, printJobPayload } from '../dispatcher/agent-documents.ts'
import { parseWireJobId, printJobMessageId, wireJobId } from '../dispatcher/wire-identity.ts'
import type { Store } from '../store/store.ts'

/** No limit on a printer's held jobs at start: each becomes a few hundred bytes of the agent's memory, its document read at its turn. */
const ALL = -1

export function builtinAgentRecords(store: Store, agentId: string): HubRecords {
  return {
    held(): HeldByHub[] {
      const held: HeldByHub[] = []
      for (const record of store.printers.ofAgent(agentId)) {
        for (const id of store.jobStates.withAgent(record.id, ALL)) {
          const attempt = store.jobStates.currentAttempt(id)
          if (!attempt) continue
          const jobId = wireJobId(id, attempt.attempt)
          held.push({ jobId, printerId: record.agentPrinterId, messageId: printJobMessageId(jobId), receivedAt: attempt.dispatchedAt })
        }
      }
      return held
    },
    payload(wireId) {
      const wire = parseWireJobId(wireId)
      const attempt = wire && store.jobStates.currentAttempt(wire.jobId)
      if (!wire || !attempt || attempt.attempt !== wire.attempt) return undefined
      const record = store.printers.get(attempt.job.printerId)
      if (record?.agentId !== agentId) return undefined
      const made = documentForAgent(store, true, record.id, wire.jobId, attempt.movedNote)
      return 'document' in made ? printJobPayload(record.agentPrinterId, attempt.job, attempt.attempt, made.document) : undefined
    },
  }
}
