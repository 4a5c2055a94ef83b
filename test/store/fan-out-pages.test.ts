// Pages of fan-out parents (the job list's `fanOut=true`): every filter exact (the state is the
// domain's summary of the children), every page's walk along the project's index of parents and
// bounded by its window, and the pages together exactly the matching parents, newest first.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import type { Job, JobState } from '../../src/protocol/job.ts'
import { fanOutRows, type ParentQuery } from '../../src/store/job-pages.ts'
import { driveJob, firstStartedStore, type TestStore } from '../support/fixtures.ts'

let world: TestStore
let clock = Date.parse('2026-11-20T12:00:00.000Z')
let bar: string
beforeEach(async () => {
  world = await firstStartedStore(() => clock)
  const builtin = world.store.agents.builtin()!
  bar = world.store.printers.add({
    projectId: world.projectId,
    remoteId: 'bar',
    name: null,
    connection: 'virtual',
    profile: 'generic-80mm',
    width: 80,
    agentId: builtin.id,
    agentPrinterId: 'bar',
  })!.id
})
afterEach(() => world.close())

const document = { width: 80 as const, sections: [{ type: 'cut' as const }] }

/**
 * A fan-out to `destination` (the demo printer and the bar) a minute after the job before, its children then driven to
 * `states`.
 */
function fanOut(
  destination: string,
  metadata: Record<string, string> | null,
  states: [JobState, JobState] = ['PENDING', 'PENDING'],
): Job {
  clock += 60_000
  const made = world.store.jobs.createFanOut(
    {
      projectId: world.projectId,
      printerId: destination,
      destination,
      idempotencyKey: `f-${crypto.randomUUID()}`,
      document,
      metadata,
      expiresInMs: 86_400_000,
      maxAttempts: 3,
    },
    [world.printerId, bar],
  )
  if (made.kind !== 'created') throw new Error(made.kind)
  made.children.forEach((child, i) => states[i] !== 'PENDING' && driveJob(world.store, child.id, states[i]!))
  return world.store.fanOuts.get(made.job.id)!
}

/** An ordinary job, for the lists of parents to leave out. */
function job(): Job {
  clock += 60_000
  const made = world.store.jobs.create({
    projectId: world.projectId,
    printerId: world.printerId,
    idempotencyKey: `k-${crypto.randomUUID()}`,
    document,
    metadata: null,
    expiresInMs: 86_400_000,
    maxAttempts: 3,
  })
  if (made.kind !== 'created') throw new Error(made.kind)
  return made.job
}

/** Every page of `query`'s parents, following `next`: their IDs in order, and each page's size. */
function allPages(
  query: Omit<ParentQuery, 'projectId'>,
  limit: number,
  window: number,
): { ids: string[]; sizes: number[] } {
  const ids: string[] = []
  const sizes: number[] = []
  let before: number | undefined
  for (let pages = 1; ; pages++) {
    const page = world.store.fanOuts.page(
      { ...query, projectId: world.projectId, ...(before !== undefined ? { before } : {}) },
      limit,
      window,
    )
    ids.push(...page.jobs.map((j) => j.id))
    sizes.push(page.jobs.length)
    if (page.next === null) return { ids, sizes }
    before = page.next
    if (pages > 1_000) throw new Error('no end')
  }
}

describe('pages of fan-out parents', () => {
  test('the job list asked for fan-outs lists the parents, as GET …/jobs/:id answers them, and nothing else', () => {
    const parents = [fanOut('everywhere', { order: '1' }), fanOut('everywhere', null)]
    job()
    world.store.commits.commit()
    const page = world.store.jobs.page({ projectId: world.projectId, fanOut: true }, 100)
    expect(page).toEqual({ jobs: parents.reverse().map((p) => world.store.fanOuts.get(p.id)!), next: null })
    // The list without it is the jobs that print, as before: the children and the ordinary job.
    expect(world.store.jobs.page({ projectId: world.projectId }, 100).jobs).toHaveLength(5)
  })

  test('the pages together are exactly the matching parents, newest first, whatever the window and page size', () => {
    const parents: Job[] = []
    const combos: [JobState, JobState][] = [
      ['PENDING', 'PENDING'],
      ['COMPLETED', 'COMPLETED'],
      ['COMPLETED', 'FAILED'],
      ['CANCELLED', 'PENDING'],
      ['COMPLETED', 'CANCELLED'],
    ]
    for (let i = 0; i < 40; i++) {
      parents.push(
        fanOut(
          i % 4 === 0 ? 'kitchen-and-bar' : 'everywhere',
          i % 3 === 0 ? { order: `${1000 + i}`, table: String(i % 5) } : null,
          combos[i % combos.length],
        ),
      )
      if (i % 2 === 0) job()
    }
    world.store.commits.commit()
    const expectIds = (pick: (p: Job, i: number) => boolean) =>
      parents
        .filter(pick)
        .map((p) => p.id)
        .reverse()
    const cases: [Omit<ParentQuery, 'projectId'>, (p: Job, i: number) => boolean][] = [
      [{}, () => true],
      [{ state: 'PENDING' }, (_, i) => i % 5 === 0 || i % 5 === 3],
      [{ state: 'COMPLETED' }, (_, i) => i % 5 === 1],
      [{ state: 'FAILED' }, (_, i) => i % 5 === 2],
      [{ state: 'CANCELLED' }, (_, i) => i % 5 === 4],
      [{ destination: 'kitchen-and-bar' }, (_, i) => i % 4 === 0],
      [{ destination: world.printerId }, () => false],
      [{ childPrinterId: bar }, () => true],
      [{ childPrinterId: 'prn_nobody' }, () => false],
      [{ metadataPrefix: '100' }, (_, i) => i % 3 === 0 && i < 10],
      [{ metadataPrefix: '1' }, (_, i) => i % 3 === 0],
      [
        { createdAfter: Date.parse(parents[9]!.createdAt), createdBefore: Date.parse(parents[30]!.createdAt) },
        (_, i) => i > 9 && i < 30,
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
      [{ metadata: [['order', '1003']], state: 'CANCELLED' }, () => false],
      [
        { state: 'COMPLETED', destination: 'everywhere', createdAfter: Date.parse(parents[20]!.createdAt) },
        (_, i) => i > 20 && i % 5 === 1 && i % 4 !== 0,
      ],
    ]
    for (const [query, pick] of cases) {
      // The state each parent is listed in is its own, as the domain summarises its children.
      if (query.state) for (const id of expectIds(pick)) expect(world.store.fanOuts.get(id)!.state).toBe(query.state)
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

  test("a position stays valid while new parents arrive, and another project's parents are never listed", async () => {
    const parents: Job[] = []
    for (let i = 0; i < 12; i++) parents.push(fanOut('everywhere', null))
    world.store.commits.commit()
    const first = world.store.fanOuts.page({ projectId: world.projectId }, 5, 1_000)
    for (let i = 0; i < 3; i++) fanOut('everywhere', null)
    world.store.commits.commit()
    const second = world.store.fanOuts.page({ projectId: world.projectId, before: first.next! }, 5, 1_000)
    expect([...first.jobs, ...second.jobs].map((j) => j.id)).toEqual(
      parents
        .slice(2)
        .reverse()
        .map((j) => j.id),
    )
    expect(world.store.fanOuts.page({ projectId: 'prj_another' }, 5, 1_000)).toEqual({ jobs: [], next: null })
  })

  test(
    "each walk goes along the project's index of parents, and a page of the " +
      "project's parents alone is read along it",
    () => {
      const plan = (query: ParentQuery) => {
        const details: string[] = []
        const original = world.store.db.query.bind(world.store.db)
        const explain = (sql: string, values: unknown[]) =>
          details.push(
            ...original(`EXPLAIN QUERY PLAN ${sql}`)
              .all(...(values as never[]))
              .map((r) => (r as { detail: string }).detail),
          )
        const db = {
          query: (sql: string) => ({
            get: (...values: unknown[]) => (explain(sql, values), { n: 0, last: null }),
            all: (...values: unknown[]) => (explain(sql, values), []),
          }),
        }
        fanOutRows(db as never, { projectId: world.projectId, ...query }, 10)
        return details
      }
      expect(plan({})).toEqual(['SEARCH fan_outs USING INDEX fan_outs_newest (project_id=? AND seq<?)'])
      for (const query of [
        { state: 'FAILED' as const },
        { destination: 'everywhere' },
        { childPrinterId: 'prn_x' },
        { metadataPrefix: '10' },
        { createdAfter: 0 },
        { metadata: [['a', 'b']] as [string, string][] },
      ]) {
        const steps = plan(query).join('\n')
        expect(steps).toContain('SEARCH fan_outs USING COVERING INDEX fan_outs_newest (project_id=? AND seq<?)')
        expect(steps).not.toMatch(/SCAN (fan_outs|jobs)\b/)
      }
      // A parent's state reads its children along their index.
      expect(plan({ state: 'FAILED' }).join('\n')).toContain('SEARCH jobs USING INDEX jobs_of_fan_outs (fan_out_id=?)')
      // Every project's parents (the dashboard's list): along the table's own order, newest first.
      expect(plan({ projectId: undefined })).toEqual(['SEARCH fan_outs USING INTEGER PRIMARY KEY (rowid<?)'])
      expect(plan({ projectId: undefined, state: 'FAILED' }).join('\n')).toContain(
        'SEARCH fan_outs USING INTEGER PRIMARY KEY (rowid<?)',
      )
    },
  )
})
