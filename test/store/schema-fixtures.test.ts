// Upgrading from every schema version printhub was released with: each data directory of
// test/fixtures/schemas/ was left by the printhub of that commit (see its README). A copy is opened
// by today's code, which must bring the whole of it up in one go, keep every project, key, printer,
// job (in its state), agent and setting, and end with the very schema a new database has. An older
// printhub refuses a newer database and says how to go back; a migration that fails leaves the
// file as it was.
import { Database } from 'bun:sqlite'
import { afterEach, describe, expect, test } from 'bun:test'
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { Ledger } from '../../src/agent/ledger.ts'
import { Log } from '../../src/platform/log.ts'
import { VERSION } from '../../src/domain/version.ts'
import { noteUpgrade } from '../../src/services/init.ts'
import { DatabaseTooNewError, openDatabase } from '../../src/sqlite/database.ts'
import { DATABASE_FILE, HUB_SCHEMA, openHubDatabase } from '../../src/store/database.ts'
import { writtenByNewerPrinthub } from '../support/fixtures.ts'
import { startTestHub, tempDir } from '../support/hub.ts'

const FIXTURES = join(import.meta.dir, '..', 'fixtures', 'schemas')
type Json = Record<string, any>
const fixtures = readdirSync(FIXTURES)
  .filter((name) => existsSync(join(FIXTURES, name, 'manifest.json')))
  .sort()
const manifest = (name: string): Json => JSON.parse(readFileSync(join(FIXTURES, name, 'manifest.json'), 'utf8'))

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A copy of a fixture's directory to change freely. */
function copy(name: string, what = 'data'): string {
  const dir = tempDir()
  dirs.push(dir)
  cpSync(join(FIXTURES, name, what), dir, { recursive: true })
  return dir
}

/** The schema as SQLite keeps it, without comments, quotes and layout (ALTER TABLE RENAME quotes names). */
function schemaOf(file: string): string[] {
  const db = new Database(file, { readonly: true })
  try {
    return db
      .query<{ type: string; name: string; sql: string | null }, []>(
        "SELECT type, name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
      )
      .all()
      .map(({ type, name, sql }) => {
        const text = (sql ?? '')
          .replace(/--[^\n]*/g, '')
          .replace(/"/g, '')
          .replace(/\s+/g, ' ')
          .replace(/\s*([(),])\s*/g, '$1')
          .trim()
        return `${type} ${name}: ${text}`
      })
  } finally {
    db.close()
  }
}

const all = (db: Database, sql: string) => db.query(sql).all() as Json[]

/** A hub started once and stopped on an empty directory: the schema every upgrade must end with. */
async function freshHubSchema(): Promise<string[]> {
  const hub = await startTestHub({ offline: true })
  await hub.hub.stop()
  const schema = schemaOf(join(hub.dataDir, DATABASE_FILE))
  rmSync(hub.dataDir, { recursive: true, force: true })
  return schema
}

function freshLedgerSchema(): string[] {
  const dir = tempDir()
  dirs.push(dir)
  Ledger.open(dir, { log: Log.silent().for('agent') }).close()
  return schemaOf(join(dir, 'agent.db'))
}

// The newest version is the one today's printhub makes itself (every other test uses it); its
// fixture is made from the commit that brought it, once that commit is on main.
test('a fixture exists for every store schema version released, each made by its own commit', () => {
  const versions = new Set(fixtures.map((name) => manifest(name).hub.schemaVersions.store.at(-1)))
  const all = HUB_SCHEMA.migrations.map((m) => m.version)
  for (const version of all.slice(0, -1)) expect(versions.has(version)).toBe(true)
  for (const version of versions) expect(all).toContain(version)
  // Both layouts of the agent's ledger: its own file for the built-in agent too, then in the hub's database.
  expect(fixtures.some((name) => manifest(name).builtinLedger)).toBe(true)
  expect(fixtures.some((name) => manifest(name).hub.schemaVersions.ledger.length > 0)).toBe(true)
  for (const name of fixtures) expect(manifest(name).commit).toMatch(/^[0-9a-f]{7,40}$/)
})

describe.each(fixtures)("%s, opened by today's printhub", (name) => {
  const made = manifest(name)

  test('keeps every project, printer, job in its state, agent and setting, and ' +
    "ends with a new database's schema", async () => {
    const dataDir = copy(name)
    const db = openHubDatabase(dataDir, false)
    try {
      const versions = all(db, 'SELECT version FROM schema_migrations ORDER BY version').map((row) => row.version)
      expect(versions).toEqual(HUB_SCHEMA.migrations.map((m) => m.version))
      expect(all(db, 'SELECT id, name, open_jobs AS openJobs FROM projects ORDER BY id')).toEqual(made.hub.projects)
      expect(
        all(
          db,
          `SELECT id, project_id AS projectId, remote_id AS remoteId, connection,
            removed_at IS NOT NULL AS removed FROM printers ORDER BY id`,
        ),
      ).toEqual(made.hub.printers)
      const jobs = all(
        db,
        `SELECT id, project_id AS projectId, printer_id AS printerId,
          idempotency_key AS idempotencyKey, state, attempt_count AS attemptCount,
          last_error_code AS lastErrorCode FROM jobs ORDER BY seq`,
      )
      expect(jobs.map(({ lastErrorCode, ...job }) => job)).toEqual(
        made.hub.jobs.map(({ lastErrorCode, ...job }: Json) => job),
      )
      // Failure codes come in today's spelling (migration 4); each job has its timeline (migration 3).
      for (const [i, job] of jobs.entries())
        expect(job.lastErrorCode === null).toBe(made.hub.jobs[i].lastErrorCode === null)
      for (const job of jobs) if (job.lastErrorCode !== null) expect(job.lastErrorCode).toMatch(/^[a-z_]+\.[a-z_]+$/)
      expect(all(db, 'SELECT count(DISTINCT job_seq) AS n FROM job_events')[0]!.n).toBe(jobs.length)
      expect(all(db, 'SELECT id, name, revoked_at IS NOT NULL AS revoked FROM agents ORDER BY id')).toEqual(
        made.hub.agents ?? [],
      )
      const settings = all(db, 'SELECT key, value FROM settings ORDER BY key')
      // The one admin password of before is the owner account "admin" (migration 12), with its sessions and tokens.
      for (const setting of made.hub.settings.filter((s: Json) => s.key !== 'admin_password_hash'))
        expect(settings).toContainEqual(setting)
      const password = made.hub.settings.find((s: Json) => s.key === 'admin_password_hash')
      const users = all(db, 'SELECT name, role, password_hash AS hash FROM users')
      if ((made.hub.schemaVersions.store.at(-1) as number) < 12)
        expect(users).toEqual(password ? [{ name: 'admin', role: 'owner', hash: password.value }] : [])
      // Made by a version with accounts: its first owner, from the setup link.
      else expect(users.map((user) => [user.name, user.role])).toEqual([['admin', 'owner']])
      expect(settings.some((s) => s.key === 'admin_password_hash')).toBe(false)
      expect(all(db, 'SELECT count(*) AS n FROM admin_tokens WHERE user_id IS NULL AND revoked_at IS NULL')[0]!.n).toBe(
        0,
      )
      expect(all(db, 'SELECT count(*) AS n FROM job_documents')[0]!.n).toBe(jobs.length)
      // Each project's tallies of its documents' bytes (migrations 5 and 6) are what its jobs hold.
      const terminal = "('COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED')"
      const bytes = (finished: boolean) =>
        `SELECT COALESCE(SUM(length(CAST(d.document AS BLOB))), 0) FROM jobs j
          JOIN job_documents d ON d.job_seq = j.seq WHERE j.project_id = p.id AND
          j.state ${finished ? '' : 'NOT '}IN ${terminal}`
      const tallies = all(
        db,
        `SELECT open_bytes AS open, finished_bytes AS finished, (${bytes(false)})
          AS openNow, (${bytes(true)}) AS finishedNow FROM projects p`,
      )
      expect(tallies.some((row) => row.finished > 0)).toBe(jobs.some((job) => terminal.includes(`'${job.state}'`)))
      for (const row of tallies) expect([row.open, row.finished]).toEqual([row.openNow, row.finishedNow])
    } finally {
      db.close()
    }

    // Started by today's hub (which adds the built-in agent's ledger and its own changes at start),
    // the schema is that of a hub started on an empty directory.
    const hub = await startTestHub({ dataDir })
    try {
      const { defaultKey, readOnlyKey, revokedKey, barKey, adminToken, adminPassword } = made.secrets
      const [defaultProject, barProject] = made.hub.projects.map((project: Json) => project.id)
      // Keys still authenticate, with their scopes; the revoked one stays revoked.
      const list = (project: string, key: string) => hub.request('GET', `/v1/projects/${project}/jobs`, { key })
      expect((await list(defaultProject, defaultKey)).status).toBe(200)
      expect((await list(barProject, readOnlyKey)).status).toBe(200)
      expect((await list(defaultProject, revokedKey)).status).toBe(401)
      const listed = (await (await list(barProject, barKey)).json()) as { jobs: Json[] }
      expect(listed.jobs.map((job) => job.id).sort()).toEqual(
        made.hub.jobs
          .filter((job: Json) => job.projectId === barProject)
          .map((job: Json) => job.id)
          .sort(),
      )
      const job = {
        printerId: 'bar',
        idempotencyKey: `after-upgrade-${name}`,
        document: { width: 80, sections: [{ type: 'text', value: 'after the upgrade' }] },
      }
      expect(
        (await hub.request('POST', `/v1/projects/${barProject}/jobs`, { key: readOnlyKey, body: job })).status,
      ).toBe(403)
      // Keys that read jobs read the project's printers too (migration 7); the read-only key writes
      // none. A key made since (store 7 on) has the scopes it was made with: jobs:read alone.
      const madeBefore7 = (made.hub.schemaVersions.store.at(-1) as number) < 7
      expect((await hub.request('GET', `/v1/projects/${defaultProject}/printers`, { key: defaultKey })).status).toBe(
        200,
      )
      expect((await hub.request('GET', `/v1/projects/${barProject}/printers`, { key: readOnlyKey })).status).toBe(
        madeBefore7 ? 200 : 403,
      )
      // A key that had every scope (init's, from store 7 on) has printers:write too (migration 10).
      const destination = await hub.request('POST', `/v1/projects/${defaultProject}/destinations`, {
        key: defaultKey,
        body: { name: `upgraded-${name}`, mode: 'failover', printers: ['demo'] },
      })
      expect(destination.status).toBe(madeBefore7 ? 403 : 201)
      expect((await hub.request('POST', `/v1/projects/${barProject}/jobs`, { key: barKey, body: job })).status).toBe(
        202,
      )
      // The dashboard's password and script token, where that version had them.
      if (adminToken) {
        const session = await hub.request('GET', '/admin/v1/session', { key: adminToken })
        expect(session.status).toBe(200)
        expect(((await session.json()) as Json).user).toMatchObject({ name: 'admin', role: 'owner' })
      }
      if (adminPassword)
        expect(
          (await hub.request('POST', '/admin/v1/login', { key: null, body: { password: adminPassword } })).status,
        ).toBe(200)
      // The same hub: its server ID came through.
      const serverId = made.hub.settings.find((setting: Json) => setting.key === 'server_id').value
      expect((await hub.request('GET', '/health', { key: null })).headers.get('x-printhub-server-id')).toBe(serverId)
    } finally {
      await hub.hub.stop()
    }
    expect(schemaOf(join(dataDir, DATABASE_FILE))).toEqual(await freshHubSchema())
    // Stopping may wait for a ticket the built-in agent is writing to the fixture's slow printer
    // (up to the agent's stop grace of 10 s).
  }, 30_000)

  if (made.agentLedger) {
    test("a remote agent keeps its pairing, printers and jobs, and ends with a new ledger's schema", () => {
      const dir = copy(name, 'agent-data')
      const ledger = Ledger.open(dir, { log: Log.silent().for('agent') })
      try {
        const { db } = ledger
        expect(all(db, 'SELECT key, value FROM ledger_settings ORDER BY key')).toEqual(made.agentLedger.settings)
        expect(all(db, 'SELECT id, connection FROM ledger_printers ORDER BY id')).toEqual(made.agentLedger.printers)
        expect(all(db, 'SELECT job_id AS jobId, state FROM ledger_jobs ORDER BY seq')).toEqual(made.agentLedger.jobs)
        expect(all(db, 'SELECT count(*) AS n FROM ledger_outbox')[0]!.n).toBe(made.agentLedger.outbox)
      } finally {
        ledger.close()
      }
      expect(schemaOf(join(dir, 'agent.db'))).toEqual(freshLedgerSchema())
    })
  }
})

describe('migrations run in one transaction', () => {
  test('a migration that fails after others succeeded leaves the database of the earliest release as it was', () => {
    const dataDir = copy('store-v1')
    const file = join(dataDir, DATABASE_FILE)
    const before = schemaOf(file)
    const bytes = readFileSync(file)
    const failing = [
      ...HUB_SCHEMA.migrations,
      { version: 99, description: 'fails', sql: 'CREATE TABLE projects (id TEXT) STRICT' },
    ]
    expect(() => openDatabase(dataDir, false, { ...HUB_SCHEMA, migrations: failing })).toThrow(
      /table projects already exists/,
    )
    // Migrations 2 to 4 ran before it in the same transaction: none of them is left.
    expect(schemaOf(file)).toEqual(before)
    const db = new Database(file, { readonly: true })
    expect(all(db, 'SELECT version FROM schema_migrations')).toEqual([{ version: 1 }])
    db.close()
    expect(Buffer.compare(readFileSync(file), bytes)).toBe(0)
  })
})

describe('a database of a newer printhub', () => {
  const known = HUB_SCHEMA.migrations.at(-1)!.version

  test('is refused before anything is written, naming both versions and both ways back', () => {
    const dataDir = copy('store-v4')
    writtenByNewerPrinthub(dataDir, known + 1)
    const file = join(dataDir, DATABASE_FILE)
    const bytes = readFileSync(file)
    let error: unknown
    try {
      openHubDatabase(dataDir, false).close()
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(DatabaseTooNewError)
    const message = (error as Error).message
    expect(message).toContain(`schema version ${known + 1}`)
    expect(message).toContain(`up to version ${known}`)
    expect(message).toContain('install the newer printhub')
    expect(message).toContain(`printhub restore FILE --data ${dataDir} --force`)
    expect(Buffer.compare(readFileSync(file), bytes)).toBe(0)
  })
})

test(
  "the hub's log says when it upgraded the database, from which schema to " + 'which; a new one is not an upgrade',
  async () => {
    const latest = HUB_SCHEMA.migrations.at(-1)!.version
    const oldest = fixtures[0]!
    const from = manifest(oldest).hub.schemaVersions.store.at(-1) as number
    expect(from).toBeLessThan(latest)
    for (const [dataDir, expected] of [
      [copy(oldest), 1],
      [undefined, 0],
    ] as const) {
      const lines: string[] = []
      const hub = await startTestHub({ dataDir, events: (line) => lines.push(line) })
      try {
        const said = lines.filter((line) => line.includes('upgraded the database'))
        expect(said).toHaveLength(expected)
        if (expected)
          expect(said[0]).toMatch(
            new RegExp(
              `Z info  hub from=${from} to=${latest} version=\\S+ upgraded the database ` +
                `from schema ${from} to ${latest} \\(printhub \\S+\\)$`,
            ),
          )
        // The audit log says it too, on this machine; a new hub's first start is not an upgrade.
        const upgrades = hub.hub.store.audit.page(100).filter((entry) => entry.action === 'hub.upgrade')
        expect(upgrades.map(({ user, target, address }) => ({ user, target, address }))).toEqual(
          expected
            ? [
                {
                  user: null,
                  target: `an older printhub → ${VERSION}, schema ${from} → ${latest}`,
                  address: 'this machine',
                },
              ]
            : [],
        )
      } finally {
        await hub.stop()
      }
    }
  },
)

test('the audit log notes each start that runs another version of printhub than the last start did, once', async () => {
  const hub = await startTestHub()
  try {
    // The first start of a new hub noted its version, and no upgrade; each start after it runs this.
    for (const version of [VERSION, '99.0.0', '99.0.0', VERSION]) noteUpgrade(hub.hub.store, undefined, version)
    const targets = hub.hub.store.audit
      .page(100)
      .filter((entry) => entry.action === 'hub.upgrade')
      .map((entry) => entry.target)
    // Newest first: back to this version (going back is a change of version too), after 99.0.0.
    expect(targets).toEqual([`99.0.0 → ${VERSION}`, `${VERSION} → 99.0.0`])
  } finally {
    await hub.stop()
  }
})
