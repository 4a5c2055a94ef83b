// What several pages show of the hub's records: how printers and projects are named, and the
// agents as the admin API lists them.
import type { AdminAgent } from '../../../protocol/admin/agents.ts'
import type { AdminProject as Project } from '../../../protocol/admin/projects.ts'

export type AgentView = AdminAgent

export const projectOptions = (projects: Project[]): [string, string][] => projects.map((p) => [p.id, p.name])
export const printerLabel = (p: { name: string | null; remoteId: string }) =>
  p.name ? `${p.name} (${p.remoteId})` : p.remoteId
