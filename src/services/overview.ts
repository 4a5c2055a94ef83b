// What the dashboard's overview shows: its printers with their state, today's jobs by state (since
// midnight on the hub's clock, in its time zone), the hub, and how many agents are connected.
import { BUILD_COMMIT, VERSION } from '../domain/version.ts'
import { JOB_STATES } from '../protocol/job.ts'
import type { Store } from '../store/store.ts'
import type { PrinterBoard } from './printer-board.ts'
import type { HubOnTheLan } from './lan.ts'

/** Midnight of the day `now` is in, on the hub's clock and in its time zone: where "today" starts. */
export function startOfDay(now: number): number {
  const day = new Date(now)
  day.setHours(0, 0, 0, 0)
  return day.getTime()
}

export interface OverviewSources {
  board: PrinterBoard
  serverId: string
  serverName(): string
  /** When the hub started, in milliseconds since the epoch. */
  startedAt: number
  now(): number
  lan(): HubOnTheLan
  isConnected(agentId: string): boolean
  /** The printers seen polling the hub, adopted or not. */
  pollingPrinters(): readonly { adopted: boolean }[]
}

export type Overview = ReturnType<typeof overview>

export function overview(store: Store, sources: OverviewSources) {
  const { now } = sources
  const since = startOfDay(now())
  const counts = store.jobs.countByState(since)
  const agents = store.agents.list().filter((agent) => !agent.revokedAt)
  return {
    hub: {
      ...sources.lan(),
      serverName: sources.serverName(),
      serverId: sources.serverId,
      version: VERSION,
      commit: BUILD_COMMIT,
      startedAt: new Date(sources.startedAt).toISOString(),
    },
    printers: sources.board
      .views()
      .map(({ id, projectId, remoteId, name, state, agentName, agentOnline, builtin, queue }) => ({
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
    agents: { online: agents.filter((agent) => sources.isConnected(agent.id)).length, paired: agents.length },
    /** Printers that poll the hub and wait for a technician to adopt them. */
    printersToAdopt: sources.pollingPrinters().filter((printer) => !printer.adopted).length,
  }
}
