// Accounts on the machine, with the CLI against a running hub's data directory: the first owner
// from `admin set-password`, `users add NAME --role …` with the password on standard input,
// `users list`, `admin create-token --user NAME` (its role in force at once), `users disable` (its
// token stops working at once), the last owner kept; each change in the audit log as made on the
// machine, those of the other commands that change the hub too (settings, printers), never one that failed.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cli, cliJson } from '../support/cli.ts'
import { startTestHub, type TestHub } from '../support/hub.ts'

let hub: TestHub
let env: Record<string, string>

beforeAll(async () => {
  hub = await startTestHub()
  env = { PRINTHUB_DATA_DIR: hub.dataDir }
})
afterAll(() => hub.stop())

describe('printhub users and admin tokens', () => {
  test('the first owner, then accounts with roles; bad input refused, nothing made', async () => {
    const first = await cli(['admin', 'set-password', '--user', 'olga'], env, 'owner password one\n')
    expect(first.code).toBe(0)
    expect(first.stdout).toContain('The password of olga (owner) is set.')
    expect(await cliJson(['users', 'add', 'sam', '--role', 'staff'], env, 'staff password two\n')).toMatchObject({
      name: 'sam',
      role: 'staff',
      disabled: false,
    })
    expect(await cliJson(['users', 'add', 'tom', '--role', 'technician'], env, 'technician password\n')).toMatchObject({
      name: 'tom',
      role: 'technician',
    })
    const again = await cli(['users', 'add', 'SAM', '--role', 'staff'], env, 'staff password two\n')
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining('there is an account SAM already')])
    const role = await cli(['users', 'add', 'ann', '--role', 'cook'], env, 'long enough pass\n')
    expect([role.code, role.stderr]).toEqual([
      2,
      expect.stringContaining('--role must be one of owner, technician, staff'),
    ])
    const short = await cli(['users', 'add', 'ann', '--role', 'staff'], env, 'short\n')
    expect([short.code, short.stderr]).toEqual([
      1,
      expect.stringContaining('password: The password must have at least 10 characters.'),
    ])
    const listed = await cliJson<{ name: string; role: string }[]>(['users', 'list'], env)
    expect(listed.map((user) => [user.name, user.role])).toEqual([
      ['olga', 'owner'],
      ['sam', 'staff'],
      ['tom', 'technician'],
    ])
    // Several accounts: the password is set for the one named.
    const unnamed = await cli(['admin', 'set-password'], env, 'a new password!\n')
    expect([unnamed.code, unnamed.stderr]).toEqual([2, expect.stringContaining('name one with --user NAME')])
  })

  test(
    "a token carries its account's role; disabled, the account's token stops " + 'at once; the last owner stays',
    async () => {
      const made = await cliJson<{ token: string; user: string; role: string }>(
        ['admin', 'create-token', '--user', 'sam', '--name', 'till'],
        env,
      )
      expect([made.user, made.role, made.token.startsWith('pha_')]).toEqual(['sam', 'staff', true])
      expect((await hub.request('GET', '/admin/v1/jobs', { key: made.token })).status).toBe(200)
      expect((await hub.request('GET', '/admin/v1/settings', { key: made.token })).status).toBe(403)
      expect((await cli(['users', 'disable', 'sam'], env)).code).toBe(0)
      expect((await hub.request('GET', '/admin/v1/jobs', { key: made.token })).status).toBe(401)
      expect((await cliJson(['users', 'enable', 'sam'], env)).disabled).toBe(false)
      expect((await hub.request('GET', '/admin/v1/jobs', { key: made.token })).status).toBe(200)
      const last = await cli(['users', 'disable', 'olga'], env)
      expect([last.code, last.stderr]).toEqual([1, expect.stringContaining('olga is the only owner who can sign in')])
      const nobody = await cli(['admin', 'create-token', '--user', 'nobody', '--name', 'x'], env)
      expect([nobody.code, nobody.stderr]).toEqual([1, expect.stringContaining('there is no account nobody')])
    },
  )

  test('each change made on the machine is in the audit log, said as such', async () => {
    expect((await cli(['settings', 'set', 'retention-days', '45'], env)).code).toBe(0)
    expect(
      (await cli(['printers', 'add', '--project', hub.projectId, '--id', 'shelf', '--connection', 'virtual'], env))
        .code,
    ).toBe(0)
    expect(
      (await cli(['printers', 'add', '--project', hub.projectId, '--id', 'shelf', '--connection', 'virtual'], env))
        .code,
    ).not.toBe(0)
    const owner = await cliJson<{ token: string }>(['admin', 'create-token', '--user', 'olga', '--name', 'audit'], env)
    const { entries } = (await (
      await hub.request('GET', '/admin/v1/audit?limit=500', { key: owner.token })
    ).json()) as { entries: { user: string | null; action: string; target: string | null; address: string }[] }
    const machine = entries.filter((entry) => entry.address === 'this machine').reverse()
    expect(machine.map((entry) => [entry.user, entry.action, entry.target])).toEqual([
      [null, 'users.create', 'olga (owner)'],
      [null, 'users.create', 'sam (staff)'],
      [null, 'users.create', 'tom (technician)'],
      [null, 'tokens.create', 'sam: till'],
      [null, 'users.disable', 'sam'],
      [null, 'users.enable', 'sam'],
      // A command that failed changed nothing and is not recorded.
      [null, 'settings.set', 'retention-days 45'],
      [null, 'printers.add', 'shelf'],
      [null, 'tokens.create', 'olga: audit'],
    ])
  })
})
