// What the dashboard's overview shows: the hub, its printers with their state, the last hour's
// jobs by state, and how many agents are connected.
import { BUILD_COMMIT, VERSION } from '../domain/version.ts'
import { JOB_STATES } from '../protocol/job.ts'
import type { Store } from '../store/store.ts'
import type { PrinterBoard } from './printer-board.ts'
import type { HubOnTheLan } from './lan.ts'

/** How far back the overview counts jobs. */
const JOBS_WINDOW_MS = 3_600_000

export interface OverviewSources {
  store: Store
  board: PrinterBoard
  serverId: string
  serverName(): string
  /** When the hub started, in milliseconds since the epoch. */
  startedAt: number
  now(): number
  lan(): HubOnTheLan
  isConnected(agentId: string): boolean
}

export type Overview = ReturnType<typeof overview>

export function overview(sources: OverviewSources) {
  const { store, now } = sources
  const counts = store.jobs.countByState(now() - JOBS_WINDOW_MS)
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
    printers: sources.board.views().map(({ id, projectId, remoteId, name, state, agentName, agentOnline, builtin, queue }) => ({ id, projectId, remoteId, name, state, agentName, agentOnline, builtin, queue })),
    jobsLastHour: Object.fromEntries(JOB_STATES.map((state) => [state, counts[state] ?? 0])),
    agents: { online: agents.filter((agent) => sources.isConnected(agent.id)).length, paired: agents.length },
  }
}
