// What the cluster's tests set up alike: a migrated database, nodes on it, a project with an API key, and an agent
// paired through a node, online there with one virtual printer that the project has under the printer's own name.
import { SQL } from 'bun'
import { resolveConfig } from '../../src/hub/config.ts'
import { type ClusterNode, startClusterNode } from '../../src/hub/start-node.ts'
import { migrate } from '../../src/pgstore/migrate.ts'
import { THE_MACHINE } from '../../src/services/actor.ts'
import type { HubServices } from '../../src/services/hub-services.ts'
import { API_KEY_SCOPES } from '../../src/protocol/api-key.ts'
import { FakeAgent, pairAgent, virtualPrinter } from './fake-agent.ts'
import { tempDir } from './hub.ts'
import type { TestPostgres } from './postgres.ts'
import { waitFor } from './wait.ts'

/** A database of the test server's, with the cluster's schema applied; its URL. */
export async function migratedDatabase(pg: TestPostgres, name: string): Promise<string> {
  const url = await pg.database(name)
  const sql = new SQL(url)
  try {
    await migrate(sql)
  } finally {
    await sql.close()
  }
  return url
}

/** A node on the database at `url`, in a data directory of its own, on a free port; its log lines to `events`. */
export function startNode(
  url: string,
  env: Record<string, string> = {},
  events: (line: string) => void = () => {},
): Promise<ClusterNode> {
  return startClusterNode(resolveConfig({ host: '127.0.0.1', port: '0', data: tempDir() }, env), url, {
    events,
    log: () => {},
  })
}

/** A project with an API key of every scope. */
export async function projectWithKey(
  services: HubServices,
  name: string,
): Promise<{ projectId: string; apiKey: string }> {
  const project = await services.projects.create(THE_MACHINE, name)
  if (project.kind !== 'created') throw new Error(project.kind)
  const key = await services.keys.create(THE_MACHINE, project.project.id, { scopes: [...API_KEY_SCOPES], name: 'pos' })
  if (key.kind !== 'created') throw new Error(key.kind)
  return { projectId: project.project.id, apiKey: key.secret }
}

/** An agent paired and online through the node at `nodeUrl`, its printer `printer` the project's once reported. */
export async function agentWithPrinter(
  services: HubServices,
  nodeUrl: string,
  project: { projectId: string; printer: string },
): Promise<{ agent: FakeAgent; recordId: string }> {
  const code = await services.agents.createPairingCode(THE_MACHINE, { ttlMs: 300_000 })
  if (code.kind !== 'created') throw new Error(code.kind)
  const agent = await FakeAgent.online(nodeUrl, await pairAgent(nodeUrl, code.code), [virtualPrinter(project.printer)])
  const assigned = await waitFor(async () => {
    const outcome = await services.printers.assign(THE_MACHINE, {
      projectId: project.projectId,
      agentId: agent.agentId,
      agentPrinterId: project.printer,
      id: project.printer,
    })
    return outcome.kind === 'not_reported' ? undefined : outcome
  }, 5_000)
  if (assigned.kind !== 'added') throw new Error(assigned.kind)
  return { agent, recordId: assigned.printer.id }
}
