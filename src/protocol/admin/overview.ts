// The overview (the hub, its printers, today's jobs, its agents) and the stream that keeps open
// pages live: a server-sent event with the overview whenever what the dashboard shows changed.
import { JOB_STATES, type JobState } from '../job.ts'
import { array, type Infer, nullable, object, oneOf, type Rule, string } from '../rules.ts'
import { timestamp } from '../values.ts'
import { type AdminOperation, count, json, MAX_LISTED, text } from './contract.ts'
import { adminPrinterFields } from './printers.ts'

/** Open event streams at most: each costs a timer and a few queries a second. */
export const MAX_EVENT_STREAMS = 32
/** An open stream says it is alive this often (idle connections close after 30 s). */
export const EVENT_KEEPALIVE_MS = 15_000

const { id, projectId, remoteId, name, state, agentName, agentOnline, builtin, queue } = adminPrinterFields

const jobCounts = object(Object.fromEntries(JOB_STATES.map((jobState) => [jobState, count]))) as Rule<
  Record<JobState, number>
>

const diskRule = object({
  /** The device's name (`mmcblk0`). */
  device: text,
  kind: oneOf(['sd', 'mmc', 'other']),
  freeMb: count,
  /** Bytes written to the device a day, over the time since the machine started (every program's). */
  writtenPerDay: count,
  /** Bytes the hub itself wrote a day, over the time since it started. */
  hubWrittenPerDay: count,
  /** The life the card says it has used, in percent, where it reports it (eMMC, some SD cards). */
  lifeUsed: nullable(object({ from: count, to: count })),
  /** The card's word on its spare blocks, where it reports it. */
  endOfLife: nullable(oneOf(['normal', 'warning', 'urgent'])),
  /** In a word: worn (replace it soon), low (plan it), ok, or unknown (the card reports nothing). */
  wear: oneOf(['ok', 'low', 'worn', 'unknown']),
})

export const overviewRule = object({
  hub: object({
    /** How people on the LAN reach the hub: its name, URL and addresses. */
    name: text,
    url: text,
    addresses: array(text, { max: MAX_LISTED }),
    serverName: text,
    serverId: text,
    version: string({ min: 1, max: 64 }),
    /** The git commit the executable was built from; `source` when run from a checkout. */
    commit: string({ min: 1, max: 64 }),
    startedAt: timestamp,
    /** The disk of its data (an SD card on a Raspberry Pi): its writes and wear; null where the kernel says nothing. */
    disk: nullable(diskRule),
  }),
  printers: array(object({ id, projectId, remoteId, name, state, agentName, agentOnline, builtin, queue }), {
    max: MAX_LISTED,
  }),
  /** Jobs created today (since midnight on the hub's clock, in its time zone), by state. */
  jobsToday: object({ since: timestamp, counts: jobCounts }),
  agents: object({ online: count, paired: count }),
  /** Printers that poll the hub and wait for a technician to adopt them. */
  printersToAdopt: count,
})
export type AdminOverview = Infer<typeof overviewRule>

export const overviewOperations: AdminOperation[] = [
  {
    method: 'GET',
    path: '/overview',
    operationId: 'getOverview',
    summary: "The hub, its printers with their state and queue, today's jobs by state, its agents",
    role: 'staff',
    answers: { 200: json(overviewRule, 'The overview') },
    errors: [],
  },
  {
    method: 'GET',
    path: '/events',
    operationId: 'streamChanges',
    summary:
      'Server-sent events: change, with the overview as its data, whenever anything the dashboard shows ' +
      `changed (a keep-alive comment every ${EVENT_KEEPALIVE_MS / 1000} s; at most ${MAX_EVENT_STREAMS} open streams)`,
    role: 'staff',
    answers: { 200: { description: 'The stream of changes', mediaType: 'text/event-stream' } },
    errors: [503],
  },
]
