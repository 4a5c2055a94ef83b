// Upgrading a database: failure codes stored by an earlier version are brought to today's spelling,
// in the jobs and in their timelines, and nothing else changes.
import { afterEach, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { openDatabase } from '../../src/sqlite/database.ts'
import { HUB_SCHEMA, openHubDatabase } from '../../src/store/database.ts'
import { tempDir } from '../support/hub.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

test('failure codes of an earlier version are renamed at the upgrade, in jobs and job events', () => {
  const dir = tempDir()
  dirs.push(dir)
  // A hub of schema version 3 with two failed jobs, one with a code it never renamed.
  const old = openDatabase(dir, true, {
    ...HUB_SCHEMA,
    migrations: HUB_SCHEMA.migrations.filter((m) => m.version <= 3),
  })
  old.run("INSERT INTO projects (id, name, created_at) VALUES ('prj_1', 'default', 0)")
  old.run(
    `INSERT INTO printers (id, project_id, remote_id, connection, profile,
      width, created_at) VALUES ('prn_1', 'prj_1', 'bar', 'virtual',
      'generic-80mm', 80, 0)`,
  )
  const job = (id: string, key: string, code: string) => {
    old.run(
      `INSERT INTO jobs (id, project_id, printer_id, idempotency_key, state,
        expires_at, max_attempts, created_at, updated_at) VALUES (?, 'prj_1',
        'prn_1', ?, 'PENDING', 9e12, 5, 0, 0)`,
      [id, key],
    )
    old.run(
      `UPDATE jobs SET state = 'FAILED', attempt_count = 5, last_error_code =
        ?, last_error_message = 'm', updated_at = 1 WHERE id = ?`,
      [code, id],
    )
  }
  job('job_a', 'a', 'paper_out')
  job('job_b', 'b', 'expired')
  job('job_c', 'c', 'spooler.failed')
  old.close()

  const db = openHubDatabase(dir, false)
  const codes = db
    .query<{ id: string; last_error_code: string }, []>('SELECT id, last_error_code FROM jobs ORDER BY id')
    .all()
  expect(codes).toEqual([
    { id: 'job_a', last_error_code: 'printer.paper_out' },
    { id: 'job_b', last_error_code: 'job.expired' },
    { id: 'job_c', last_error_code: 'spooler.failed' },
  ])
  const events = db
    .query<{ error_code: string | null }, []>(
      "SELECT error_code FROM job_events WHERE state = 'FAILED' ORDER BY job_seq",
    )
    .all()
  expect(events.map((e) => e.error_code)).toEqual(['printer.paper_out', 'job.expired', 'spooler.failed'])
  // Renaming a code is no step of a job: the timelines got no new rows.
  expect(db.query<{ n: number }, []>('SELECT count(*) AS n FROM job_events').get()!.n).toBe(6)
  db.close()
})
