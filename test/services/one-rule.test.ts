// Rules that had drifted apart between the CLI and the admin API, now checked in one place (the
// operation in services/): each asked through both edges, a CLI process and the admin API on one
// hub's data, which must agree. And each change in the audit log once, named by its operation.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { MAX_DESTINATION_PRINTERS } from '../../src/protocol/destinations.ts'
import { adminToken } from '../support/fixtures.ts'
import { cli } from '../support/cli.ts'
import { startTestHub, type TestHub } from '../support/hub.ts'

let hub: TestHub
let env: Record<string, string>
let owner: string

beforeAll(async () => {
  hub = await startTestHub()
  env = { PRINTHUB_DATA_DIR: hub.dataDir }
  owner = adminToken(hub.hub.store, 'owner', 'olga')
})
afterAll(() => hub.stop())

const admin = (method: string, path: string, body?: unknown) =>
  hub.request(method, `/admin/v1${path}`, { key: owner, ...(body === undefined ? {} : { body }) })

/** The audit log's entries of an action, oldest first: [user, target, address]. */
async function audited(action: string): Promise<[string | null, string | null, string | null][]> {
  const { entries } = (await (await admin('GET', '/audit?limit=500')).json()) as {
    entries: { user: string | null; action: string; target: string | null; address: string | null }[]
  }
  return entries
    .filter((entry) => entry.action === action)
    .reverse()
    .map((entry) => [entry.user, entry.target, entry.address])
}

function pairedAgent(name: string): string {
  const store = hub.hub.store
  return store.agents.insert(
    { name, version: '1', platform: 'linux', installationId: `installation_${name}`, publicKey: 'A'.repeat(43) },
    Date.now(),
  ).id
}

describe('agents', () => {
  test("the hub's built-in agent is revoked by neither edge", async () => {
    const builtin = hub.hub.store.agents.builtin()!.id
    const byCli = await cli(['agents', 'revoke', builtin], env)
    expect([byCli.code, byCli.stderr]).toEqual([1, expect.stringContaining('the built-in agent is part of the hub')])
    const byApi = await admin('POST', `/agents/${builtin}/revoke`)
    expect(byApi.status).toBe(409)
    expect(((await byApi.json()) as { error: { message: string } }).error.message).toContain('cannot be revoked')
    expect(hub.hub.store.agents.get(builtin)!.revokedAt).toBeNull()
  })

  test('an agent revoked by one edge is already revoked for the other; each revocation audited once', async () => {
    const first = pairedAgent('bar')
    expect((await cli(['agents', 'revoke', first], env)).code).toBe(0)
    const again = await admin('POST', `/agents/${first}/revoke`)
    expect(again.status).toBe(409)
    expect(((await again.json()) as { error: { message: string } }).error.message).toBe(
      'This agent is already revoked.',
    )
    const second = pairedAgent('terrace')
    expect((await admin('POST', `/agents/${second}/revoke`)).status).toBe(200)
    const twice = await cli(['agents', 'revoke', second], env)
    expect([twice.code, twice.stderr]).toEqual([1, expect.stringContaining(`agent ${second} is already revoked`)])
    expect(await audited('agents.revoke')).toEqual([
      [null, first, 'this machine'],
      ['olga', second, '127.0.0.1'],
    ])
  })
})

describe('accounts', () => {
  const users = async () =>
    ((await (await admin('GET', '/users')).json()) as { users: { id: string; name: string }[] }).users
  const idOf = async (name: string) => (await users()).find((user) => user.name === name)!.id
  const lastOwner = 'is the only owner who can sign in: make another owner first'

  test('the last owner who can sign in is disabled or demoted by neither edge; with another, by either', async () => {
    const olga = await idOf('olga')
    const byCli = await cli(['users', 'disable', 'olga'], env)
    expect([byCli.code, byCli.stderr]).toEqual([1, expect.stringContaining(`olga ${lastOwner}`)])
    for (const change of [{ disabled: true }, { role: 'technician' }]) {
      const byApi = await admin('PATCH', `/users/${olga}`, change)
      expect(byApi.status).toBe(409)
      expect(((await byApi.json()) as { error: { message: string } }).error.message).toBe(`olga ${lastOwner}.`)
    }
    // Another owner (made on the machine), disabled through the admin API: olga is the last again, for both.
    expect((await cli(['users', 'add', 'ann', '--role', 'owner'], env, 'a password for ann\n')).code).toBe(0)
    const ann = await idOf('ann')
    expect((await admin('PATCH', `/users/${ann}`, { disabled: true })).status).toBe(200)
    expect((await cli(['users', 'disable', 'olga'], env)).stderr).toContain(`olga ${lastOwner}`)
    expect((await admin('PATCH', `/users/${olga}`, { role: 'staff' })).status).toBe(409)
    // Enabled again on the machine: ann may be demoted through the admin API, and then olga is the last once more.
    expect((await cli(['users', 'enable', 'ann'], env)).code).toBe(0)
    expect((await admin('PATCH', `/users/${ann}`, { role: 'technician' })).status).toBe(200)
    expect((await cli(['users', 'disable', 'olga'], env)).code).toBe(1)
    expect(hub.hub.store.users.activeOwners()).toBe(1)
    expect([
      ...(await audited('users.disable')),
      ...(await audited('users.enable')),
      ...(await audited('users.role')),
    ]).toEqual([
      ['olga', 'ann', '127.0.0.1'],
      [null, 'ann', 'this machine'],
      ['olga', 'ann (technician)', '127.0.0.1'],
    ])
  })
})

describe('destinations', () => {
  test(`at most ${MAX_DESTINATION_PRINTERS} printers, through the CLI, the admin API and the public API`, async () => {
    const printers = Array.from({ length: MAX_DESTINATION_PRINTERS + 1 }, (_, i) => `p${i}`)
    const tooMany = `printers: must have 1 to ${MAX_DESTINATION_PRINTERS} items (got ${printers.length})`
    const byCli = await cli(
      [
        'destinations',
        'create',
        'everywhere',
        '--project',
        hub.projectId,
        ...printers.flatMap((p) => ['--printer', p]),
      ],
      env,
    )
    expect([byCli.code, byCli.stderr]).toEqual([1, expect.stringContaining(tooMany)])
    for (const answer of [
      await admin('POST', `/projects/${hub.projectId}/destinations`, { name: 'everywhere', printers }),
      await hub.request('POST', `/v1/projects/${hub.projectId}/destinations`, {
        body: { name: 'everywhere', mode: 'all', printers },
      }),
    ]) {
      expect(answer.status).toBe(400)
      const { error } = (await answer.json()) as { error: { details: { path: string; message: string }[] } }
      expect(error.details.map(({ path, message }) => `${path}: ${message}`)).toEqual([tooMany])
    }
    expect(hub.hub.store.destinations.list(hub.projectId)).toEqual([])
  })

  test('each change audited once, by whoever made it: the machine, an account, an application', async () => {
    expect(
      (await cli(['destinations', 'create', 'front', '--project', hub.projectId, '--printer', 'demo'], env)).code,
    ).toBe(0)
    expect((await admin('DELETE', `/projects/${hub.projectId}/destinations/front`)).status).toBe(204)
    const made = await hub.request('POST', `/v1/projects/${hub.projectId}/destinations`, {
      body: { name: 'back', mode: 'failover', printers: ['demo'] },
    })
    expect(made.status).toBe(201)
    const keyPrefix = hub.hub.store.apiKeys.list(hub.projectId)[0]!.keyPrefix
    expect([...(await audited('destinations.create')), ...(await audited('destinations.delete'))]).toEqual([
      [null, 'front', 'this machine'],
      [`API key ${keyPrefix}`, 'back', '127.0.0.1'],
      ['olga', 'front', '127.0.0.1'],
    ])
  })
})
