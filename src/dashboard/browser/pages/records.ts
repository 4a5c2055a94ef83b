// What several pages show of the hub's records: how printers and projects are named, and the
// agents as the admin API lists them.
import type { AgentRecord } from '../../../store/agents.ts'
import type { Project } from '../../../store/projects.ts'

export type AgentView = AgentRecord & {
  online: boolean
  printers: { id: string; name: string; availability: string; enabled: boolean; kind: string }[]
}

export const projectOptions = (projects: Project[]): [string, string][] => projects.map((p) => [p.id, p.name])
export const printerLabel = (p: { name: string | null; remoteId: string }) =>
  p.name ? `${p.name} (${p.remoteId})` : p.remoteId
