// Pages of jobs (store/job-pages.ts): every filter exact, every page's walk along an index and
// bounded by its window, and the pages together exactly the matching jobs, newest first.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import type { Job } from '../../src/protocol/job.ts'
import { type JobQuery, jobPage } from '../../src/store/job-pages.ts'
import { driveJob, firstStartedStore, type TestStore } from '../support/fixtures.ts'

let world: TestStore
let clock = Date.parse('2026-11-20T12:00:00.000Z')
beforeEach(async () => {
  world = await firstStartedStore(() => clock)
})
afterEach(() => world.close())

/** A job created a minute after the one before, with `metadata`. */
function job(metadata: Record<string, string> | null = null, state: 'PENDING' | 'COMPLETED' = 'PENDING'): Job {
  clock += 60_000
  const created = world.store.jobs.create({
    projectId: world.projectId,
    printerId: world.printerId,
    idempotencyKey: `k-${crypto.randomUUID()}`,
    document: { width: 80, sections: [{ type: 'cut' }] },
    metadata,
    expiresInMs: 86_400_000,
    maxAttempts: 3,
  })
  if (created.kind !== 'created') throw new Error(created.kind)
  return state === 'PENDING' ? created.job : driveJob(world.store, created.job.id, state)
}

/** Every page of `query`, following `next`, with `window`: the jobs in order, and how many pages. */
function allPages(
  query: Omit<JobQuery, 'projectId'>,
  limit: number,
  window: number,
): { ids: string[]; pages: number; sizes: number[] } {
  const ids: string[] = []
  const sizes: number[] = []
  let before: number | undefined
  for (let pages = 1; ; pages++) {
    const page = jobPage(
      world.store.db,
      { ...query, projectId: world.projectId, ...(before !== undefined ? { before } : {}) },
      limit,
      window,
    )
    ids.push(...page.jobs.map((j) => j.id))
    sizes.push(page.jobs.length)
    if (page.next === null) return { ids, pages, sizes }
    before = page.next
    if (pages > 1_000) throw new Error('no end')
  }
}

describe('job pages', () => {
  test('the pages together are exactly the matching jobs, newest first, whatever the window and page size', () => {
    const jobs: Job[] = []
    for (let i = 0; i < 60; i++)
      jobs.push(
        job(i % 3 === 0 ? { order: `${1000 + i}`, table: String(i % 5) } : null, i % 2 === 0 ? 'COMPLETED' : 'PENDING'),
      )
    world.store.commits.commit()
    const expectIds = (pick: (j: Job, i: number) => boolean) =>
      jobs
        .filter(pick)
        .map((j) => j.id)
        .reverse()
    const cases: [Omit<JobQuery, 'projectId'>, (j: Job, i: number) => boolean][] = [
      [{}, () => true],
      [{ state: 'COMPLETED' }, (_, i) => i % 2 === 0],
      [{ printerId: world.printerId }, () => true],
      [{ printerId: 'prn_nobody' }, () => false],
      [
        { createdAfter: Date.parse(jobs[9]!.createdAt), createdBefore: Date.parse(jobs[40]!.createdAt) },
        (_, i) => i > 9 && i < 40,
      ],
      [{ metadata: [['table', '0']] }, (_, i) => i % 3 === 0 && i % 5 === 0],
      [
        {
          metadata: [
            ['table', '3'],
            ['order', '1003'],
          ],
        },
        (_, i) => i === 3,
      ],
      [{ metadata: [['order', '1003']], state: 'PENDING' }, (_, i) => i === 3],
      [{ state: 'PENDING', createdAfter: Date.parse(jobs[50]!.createdAt) }, (_, i) => i > 50 && i % 2 === 1],
    ]
    for (const [query, pick] of cases) {
      for (const [limit, window] of [
        [7, 1_000],
        [7, 5],
        [100, 3],
        [1, 1],
      ] as const) {
        const { ids, sizes } = allPages(query, limit, window)
        expect([JSON.stringify(query), limit, window, ids]).toEqual([
          JSON.stringify(query),
          limit,
          window,
          expectIds(pick),
        ])
        for (const size of sizes) expect(size).toBeLessThanOrEqual(limit)
      }
    }
  })

  test('a page stops at its window: short, even empty, with where to go on, and never a job twice', () => {
    const jobs: Job[] = []
    for (let i = 0; i < 30; i++) jobs.push(job())
    world.store.commits.commit()
    // Only the oldest 2 match: the newest windows of 10 hold none of them.
    const query = { createdBefore: Date.parse(jobs[2]!.createdAt) }
    const first = jobPage(world.store.db, { ...query, projectId: world.projectId }, 5, 10)
    expect(first.jobs).toEqual([])
    expect(first.next).not.toBeNull()
    const { ids, pages } = allPages(query, 5, 10)
    expect(ids).toEqual([jobs[1]!.id, jobs[0]!.id])
    expect(pages).toBe(3)
    // The window that reached the oldest job says there is no more.
  })

  test(
    "where the walk's index holds exactly the matching jobs (the project's, " +
      "one state's), a page is full whatever the window, and knows at once " +
      'whether more follow',
    () => {
      const jobs: Job[] = []
      for (let i = 0; i < 14; i++) jobs.push(job(null, i < 7 ? 'COMPLETED' : 'PENDING'))
      world.store.commits.commit()
      const page = (query: Omit<JobQuery, 'projectId'>, limit: number) =>
        jobPage(world.store.db, { ...query, projectId: world.projectId }, limit, 3)
      const all = page({}, 7)
      expect(all.jobs.map((j) => j.id)).toEqual(
        jobs
          .slice(7)
          .reverse()
          .map((j) => j.id),
      )
      expect(page({ before: all.next! }, 7)).toEqual({
        jobs: jobs
          .slice(0, 7)
          .reverse()
          .map((j) => world.store.jobs.get(j.id)!),
        next: null,
      })
      expect(page({}, 14)).toEqual({
        jobs: jobs
          .slice()
          .reverse()
          .map((j) => world.store.jobs.get(j.id)!),
        next: null,
      })
      expect(page({ state: 'PENDING' }, 7)).toEqual({
        jobs: jobs
          .slice(7)
          .reverse()
          .map((j) => world.store.jobs.get(j.id)!),
        next: null,
      })
      expect(page({ state: 'COMPLETED' }, 6).next).not.toBeNull()
      // A printer's walk is still bounded by its window (its index may hold another project's jobs).
      expect(page({ printerId: world.printerId }, 7).jobs).toHaveLength(3)
    },
  )

  test("a position stays valid while new jobs arrive: the next page goes on exactly after the last one's job", () => {
    const jobs: Job[] = []
    for (let i = 0; i < 20; i++) jobs.push(job())
    world.store.commits.commit()
    const first = jobPage(world.store.db, { projectId: world.projectId }, 8, 1_000)
    for (let i = 0; i < 5; i++) job()
    world.store.commits.commit()
    const second = jobPage(world.store.db, { projectId: world.projectId, before: first.next! }, 8, 1_000)
    expect([...first.jobs, ...second.jobs].map((j) => j.id)).toEqual(
      jobs
        .slice(4)
        .reverse()
        .map((j) => j.id),
    )
  })

  test('each walk goes along its index: the metadata entry, the printer, the state or the project', () => {
    const plan = (query: Omit<JobQuery, 'projectId'>) => {
      const details: string[] = []
      const original = world.store.db.query.bind(world.store.db)
      // The plan of the page's statements, as SQLite would run them.
      const db = {
        query: (sql: string) => ({
          get: (...values: unknown[]) => (
            details.push(
              ...original(`EXPLAIN QUERY PLAN ${sql}`)
                .all(...(values as never[]))
                .map((r) => (r as { detail: string }).detail),
            ),
            { low: null, n: 0 }
          ),
          all: (...values: unknown[]) => (
            details.push(
              ...original(`EXPLAIN QUERY PLAN ${sql}`)
                .all(...(values as never[]))
                .map((r) => (r as { detail: string }).detail),
            ),
            []
          ),
        }),
      }
      jobPage(db as never, { ...query, projectId: world.projectId }, 10)
      return details
    }
    expect(plan({ metadata: [['order', '1']], state: 'PENDING' }).join('\n')).toContain(
      'SEARCH job_metadata USING PRIMARY KEY (project_id=? AND key=? AND value=? AND job_seq<?)',
    )
    expect(plan({ printerId: world.printerId, state: 'PENDING' }).join('\n')).toContain(
      'SEARCH jobs USING COVERING INDEX jobs_by_printer (printer_id=? AND seq<?)',
    )
    expect(plan({ state: 'PENDING', createdAfter: 0 }).join('\n')).toContain(
      'SEARCH jobs USING COVERING INDEX jobs_newest_by_state (project_id=? AND state=? AND seq<?)',
    )
    expect(plan({ createdBefore: 0 }).join('\n')).toContain(
      'SEARCH jobs USING COVERING INDEX jobs_newest (project_id=? AND seq<?)',
    )
    for (const query of [
      {},
      { state: 'FAILED' as const },
      { createdAfter: 0 },
      { metadata: [['a', 'b']] as [string, string][] },
    ])
      expect(plan(query).some((step) => /^SCAN jobs\b/.test(step))).toBe(false)
    // A page the index holds exactly is read along it, in its order: one statement, no candidates looked up, nothing
    // sorted.
    expect(plan({})).toEqual(['SEARCH jobs USING INDEX jobs_newest (project_id=? AND seq<?)'])
    expect(plan({ state: 'FAILED' })).toEqual([
      'SEARCH jobs USING INDEX jobs_newest_by_state (project_id=? AND state=? AND seq<?)',
    ])
  })
})
