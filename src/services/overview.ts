// What the dashboard's overview shows: its printers with their state, today's jobs by state (since
// midnight on the hub's clock, in its time zone), the hub, and how many agents are connected.
import { cardWear, perDay } from '../domain/disk.ts'
import { BUILD_COMMIT, VERSION } from '../domain/version.ts'
import { JOB_STATES, type JobState } from '../protocol/job.ts'
import type { Db } from '../storage/repositories.ts'
import type { Unit } from '../storage/unit.ts'
import { type Liveness, type PrinterView, printerViewsUnit } from './printer-states.ts'
import type { HubOnTheLan } from './lan.ts'

/** Midnight of the day `now` is in, on the hub's clock and in its time zone: where "today" starts. */
export function startOfDay(now: number): number {
  const day = new Date(now)
  day.setHours(0, 0, 0, 0)
  return day.getTime()
}

export interface OverviewSources {
  serverId: string
  serverName(): string
  /** When the hub started, in milliseconds since the epoch. */
  startedAt: number
  now(): number
  lan(): HubOnTheLan
  /** The printers seen polling the hub, adopted or not. */
  pollingPrinters(): readonly { adopted: boolean }[]
  /** What the kernel says of the data's disk; undefined where it says nothing. */
  disk(): DiskFacts | undefined
}

/** The data's disk as the kernel tells it (platform/disk-wear.ts), with the hub's own writes. */
export interface DiskFacts {
  device: string
  kind: 'sd' | 'mmc' | 'other'
  freeMb: number
  writtenSinceBoot: number
  uptimeSeconds: number
  /** Bytes the hub has written since it started, and the seconds since. */
  hubWritten: number
  hubSeconds: number
  lifeUsed?: { from: number; to: number }
  endOfLife?: 'normal' | 'warning' | 'urgent'
}

/** The disk's line of the overview: writes a day and its wear, in the contract's terms. */
export function diskOverview(facts: DiskFacts | undefined) {
  if (!facts) return null
  return {
    device: facts.device,
    kind: facts.kind,
    freeMb: facts.freeMb,
    writtenPerDay: perDay(facts.writtenSinceBoot, facts.uptimeSeconds),
    hubWrittenPerDay: perDay(facts.hubWritten, facts.hubSeconds),
    lifeUsed: facts.lifeUsed ?? null,
    endOfLife: facts.endOfLife ?? null,
    wear: cardWear(facts.lifeUsed, facts.endOfLife),
  }
}

export type Overview = ReturnType<typeof overviewOf>

/** The overview, read in one unit of work on either store, with who is connected and what printers said (`live`). */
export function* overviewUnit(db: Db, sources: OverviewSources, live: Liveness): Unit<Overview> {
  const since = startOfDay(sources.now())
  const counts = yield* db.jobs.countByState(since)
  const builtinId = (yield* db.agents.builtin())?.id
  const agents = (yield* db.agents.list()).filter((agent) => !agent.revokedAt)
  const online = agents.filter((agent) => live.agentOnline(agent.id, agent.id === builtinId)).length
  const printers = yield* printerViewsUnit(db, live)
  return overviewOf(sources, { since, counts, printers, agents: { online, paired: agents.length } })
}

function overviewOf(
  sources: OverviewSources,
  read: {
    since: number
    counts: Partial<Record<JobState, number>>
    printers: PrinterView[]
    agents: { online: number; paired: number }
  },
) {
  const { since, counts } = read
  return {
    hub: {
      ...sources.lan(),
      serverName: sources.serverName(),
      serverId: sources.serverId,
      version: VERSION,
      commit: BUILD_COMMIT,
      startedAt: new Date(sources.startedAt).toISOString(),
      disk: diskOverview(sources.disk()),
    },
    printers: read.printers.map(({ id, projectId, remoteId, name, state, agentName, agentOnline, builtin, queue }) => ({
      id,
      projectId,
      remoteId,
      name,
      state,
      agentName,
      agentOnline,
      builtin,
      queue,
    })),
    jobsToday: {
      since: new Date(since).toISOString(),
      counts: Object.fromEntries(JOB_STATES.map((state) => [state, counts[state] ?? 0])),
    },
    agents: read.agents,
    /** Printers that poll the hub and wait for a technician to adopt them. */
    printersToAdopt: sources.pollingPrinters().filter((printer) => !printer.adopted).length,
  }
}
