// A process that takes jobs through the ledger as the agent does, then kills itself with SIGKILL
// (nothing closed or flushed after the moment named): what a crash leaves in a remote agent's
// ledger file and its hand-over marks. Usage: bun ledger-crash.ts DIR; it prints the jobs' seqs as
// JSON before it dies: `handed` (claimed, flushed, marked: its bytes may have gone), `claimed`
// (claimed and flushed, killed before its mark), `submitted` (every byte written, unconfirmed),
// `printed` (every byte written and confirmed at once: marked printed, killed before its record), `next`
// (the same printer's next job, claimed, flushed and marked while the printed one's record was
// still on its way, as the built-in agent's held records do).
import { writeSync } from 'node:fs'
import { Ledger } from '../../src/agent/ledger.ts'
import { ledgerJobInState, printJobPayload } from './fixtures.ts'

const ledger = Ledger.open(process.argv[2]!)
ledger.recover()
const handed = ledgerJobInState(ledger, 'submitting', printJobPayload('kitchen'))
await ledger.durable()
ledger.handingOver(handed)
const submitted = ledgerJobInState(ledger, 'submitting', printJobPayload('bar'))
await ledger.durable()
ledger.handingOver(submitted)
ledger.finish(submitted.seq, 'submit', ['report:submit'])
await ledger.durable()
const printed = ledgerJobInState(ledger, 'submitting', printJobPayload('patio'))
await ledger.durable()
ledger.handingOver(printed)
// Confirmed at once: it is recorded printed in one go, so it is still `submitting` (prompt-confirmation.ts).
ledger.printed(printed)
const next = ledgerJobInState(ledger, 'submitting', printJobPayload('patio'))
await ledger.durable()
ledger.handingOver(next)
const claimed = ledgerJobInState(ledger, 'submitting', printJobPayload('terrace'))
await ledger.durable()
const seqs = {
  handed: handed.seq,
  claimed: claimed.seq,
  submitted: submitted.seq,
  printed: printed.seq,
  next: next.seq,
}
writeSync(1, `${JSON.stringify(seqs)}\n`)
process.kill(process.pid, 'SIGKILL')
