import { printableInLine } from '../../domain/printable.ts'
import { isJobState, JOB_STATES, type JobState } from '../../protocol/job.ts'
import { isFailureCode } from '../../protocol/failures.ts'
import { en } from '../../protocol/messages/en.ts'
import {
  CliError,
  type Command,
  DATA_HELP,
  STORE_HELP,
  DATA_OPTION,
  STORE_OPTION,
  JSON_HELP,
  JSON_OPTION,
  noPositionals,
  positional,
  printJson,
  printList,
  THE_MACHINE,
  UsageError,
  withProject,
  withServices,
} from '../command.ts'

export const jobsListCommand: Command = {
  name: 'jobs list',
  summary: "list a project's newest 100 jobs, newest first",
  usage: '--project ID [--state S] [--data DIR | --store URL] [--json]',
  help: [
    '--project ID      the project',
    `--state S         only jobs in state S: ${JOB_STATES.join(', ')}`,
    DATA_HELP,
    STORE_HELP,
    JSON_HELP,
  ],
  options: { project: { type: 'string' }, state: { type: 'string' }, ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    noPositionals(args)
    const state = args.values.state as string | undefined
    if (state !== undefined && !isJobState(state))
      throw new UsageError(`--state must be one of ${JOB_STATES.join(', ')}`)
    const jobs = await withProject(args, io, (services, projectId) =>
      services.jobQueries.newest(projectId, state as JobState | undefined),
    )
    printList(io, args, jobs, {
      columns: {
        ID: (j) => j.id,
        STATE: (j) => `${en.jobStates[j.state].word} (${j.state})`,
        PRINTER: (j) => j.printerId,
        ATTEMPTS: (j) => `${j.attemptCount}/${j.maxAttempts}`,
        CREATED: (j) => j.createdAt,
        'IDEMPOTENCY KEY': (j) => j.idempotencyKey,
      },
      empty: 'No jobs.',
    })
  },
}

export const jobsShowCommand: Command = {
  name: 'jobs show',
  summary: 'show one job',
  usage: 'JOB_ID [--data DIR | --store URL] [--json]',
  help: [DATA_HELP, STORE_HELP, JSON_HELP],
  options: { ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    const id = positional(args, 0, 'JOB_ID', 1)
    const job = await withServices(args, io, (services) => services.jobQueries.get(id))
    if (!job) throw new CliError(`there is no job ${id}`)
    if (args.values.json) return printJson(io, job)
    const width = Math.max(...Object.keys(job).map((k) => k.length))
    for (const [key, value] of Object.entries(job)) {
      const shown =
        value === null ? '-' : typeof value === 'object' ? JSON.stringify(value) : printableInLine(String(value))
      io.out(`${key.padEnd(width)}  ${shown}`)
    }
    // The same in plain words, as the dashboard says it (the codes above stay for technicians).
    const failure =
      job.lastErrorCode !== null && isFailureCode(job.lastErrorCode) ? en.failures[job.lastErrorCode] : undefined
    io.out('')
    io.out(`${en.jobStates[job.state].word}.${failure ? ` ${failure.say}` : ''}`)
    if (failure?.do) io.out(`To do: ${failure.do}`)
  },
}

export const jobsCancelCommand: Command = {
  name: 'jobs cancel',
  summary: 'cancel a job that has not reached its printer yet',
  usage: 'JOB_ID [--data DIR | --store URL] [--json]',
  help: [DATA_HELP, STORE_HELP, JSON_HELP],
  options: { ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    const id = positional(args, 0, 'JOB_ID', 1)
    const outcome = await withServices(args, io, (services) => services.jobs.cancel(THE_MACHINE, id))
    if (outcome.kind === 'unknown') throw new CliError(`there is no job ${id}`)
    if (outcome.kind === 'too_late')
      throw new CliError(`job ${id} is ${outcome.job.state}: it already went to the printer`)
    if (outcome.kind === 'finished') throw new CliError(`job ${id} is already ${outcome.job.state}`)
    if (args.values.json) return printJson(io, { ...outcome.job, cancellation: outcome.kind })
    io.out(
      outcome.kind === 'cancelled'
        ? `Cancelled job ${id}.`
        : `Asked the agent to cancel job ${id}; it becomes CANCELLED unless the ` +
            `printer already took it (see printhub jobs show ${id}).`,
    )
  },
}
