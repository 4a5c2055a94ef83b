// What the built-in agent's ledger (agent/builtin-ledger.ts) reads of its hub's rows: the jobs the
// hub holds with it, a page at a time, and a held job's payload as the dispatcher sends it (the
// same fields, made from what is stored the same way), for a job whose payload the agent did not
// keep in memory. A held job's order is its number in the hub's table.
import type { HeldByHub, HubRecords } from '../agent/builtin-ledger.ts'
import { documentForAgent, printJobPayload } from '../dispatcher/agent-documents.ts'
import { parseWireJobId, printJobMessageId, wireJobId } from '../dispatcher/wire-identity.ts'
import type { HeldJob } from '../store/job-states.ts'
import type { Store } from '../store/store.ts'

export function builtinAgentRecords(store: Store, agentId: string): HubRecords {
  const printers = () => store.printers.ofAgent(agentId)
  const heldByHub = (held: HeldJob, printerId: string): HeldByHub => {
    const jobId = wireJobId(held.id, held.attempt)
    return { jobId, printerId, messageId: printJobMessageId(jobId), receivedAt: held.dispatchedAt, order: held.seq }
  }
  return {
    backlogEnds() {
      const ends = new Map<string, number>()
      for (const record of printers()) {
        const newest = store.jobStates.newestHeld(record.id)
        if (newest !== undefined) ends.set(record.agentPrinterId, newest)
      }
      return ends
    },
    held(printerId, after, upTo, limit) {
      const record = printers().find((candidate) => candidate.agentPrinterId === printerId)
      return record
        ? store.jobStates.heldPage(record.id, after, upTo, limit).map((held) => heldByHub(held, printerId))
        : []
    },
    heldJob(wireId) {
      const wire = parseWireJobId(wireId)
      const held = wire && store.jobStates.held(wire.jobId)
      const record = held && store.printers.get(held.printerId)
      if (!wire || !held || held.attempt !== wire.attempt || record?.agentId !== agentId) return undefined
      return heldByHub(held, record.agentPrinterId)
    },
    payload(wireId) {
      const wire = parseWireJobId(wireId)
      const attempt = wire && store.jobStates.currentAttempt(wire.jobId)
      if (!wire || !attempt || attempt.attempt !== wire.attempt) return undefined
      const record = store.printers.get(attempt.job.printerId)
      if (record?.agentId !== agentId) return undefined
      const made = documentForAgent(store, true, record.id, attempt)
      return 'document' in made
        ? printJobPayload(record.agentPrinterId, attempt.job, attempt.attempt, made.document)
        : undefined
    },
  }
}
