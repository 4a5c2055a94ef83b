// A new job's document is kept as submitted for its first dispatch, so the dispatcher neither reads
// nor parses it again; any later attempt reads the stored one. Both must serialise to the same text
// (an attempt sent again is byte-identical), and what is kept stays bounded.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import type { PrintDocument } from '../../src/protocol/document.ts'
import { KEPT_DOCUMENT_BYTES, KEPT_DOCUMENTS } from '../../src/store/jobs.ts'
import { Store } from '../../src/store/store.ts'
import { firstStartedStore, type TestStore } from '../support/fixtures.ts'

let world: TestStore
beforeEach(async () => {
  world = await firstStartedStore()
})
afterEach(() => world.close())

function create(key: string, document: PrintDocument): string {
  const created = world.store.jobs.create({
    projectId: world.projectId,
    printerId: world.printerId,
    idempotencyKey: key,
    document,
    metadata: null,
    expiresInMs: 60_000,
    maxAttempts: 5,
  })
  if (created.kind !== 'created') throw new Error(created.kind)
  return created.job.id
}

/** How many reads of a stored document the store made while `run` ran. */
function storedReads(run: () => void): number {
  const original = world.store.jobs.document.bind(world.store.jobs)
  let reads = 0
  world.store.jobs.document = (id) => {
    reads++
    return original(id)
  }
  try {
    run()
  } finally {
    world.store.jobs.document = original
  }
  return reads
}

test('the first dispatch takes the document as submitted, later ones the stored one, and both serialise alike', () => {
  const document: PrintDocument = {
    width: 80,
    sections: [
      { type: 'text', value: 'Crème brûlée ×2 — 9,50 €', align: 'center', bold: true },
      { type: 'row', left: 'Total', right: '9.50' },
      { type: 'cut' },
    ],
  }
  const id = create('kept', document)
  world.store.commits.commit()
  let first: PrintDocument | undefined
  expect(storedReads(() => (first = world.store.jobs.documentToSend(id)))).toBe(0)
  expect(first).toBe(document)
  let again: PrintDocument | undefined
  expect(storedReads(() => (again = world.store.jobs.documentToSend(id)))).toBe(1)
  expect(again).not.toBe(document)
  expect(JSON.stringify(again)).toBe(JSON.stringify(first))
})

test('a job this process did not make (a restart) is read from the store', () => {
  expect(world.store.jobs.documentToSend('job_unknown')).toBeUndefined()
  const id = create('stored', { width: 58, sections: [{ type: 'text', value: 'one' }] })
  world.store.commits.commit()
  world.store.close()
  world.store = Store.open({ dataDir: world.dir, create: false, maxOpenJobsPerProject: 10_000 })
  expect(world.store.jobs.documentToSend(id)).toEqual({ width: 58, sections: [{ type: 'text', value: 'one' }] })
})

test('at most KEPT_DOCUMENTS are kept: the oldest go first, and are read from the store when sent', () => {
  const ids = Array.from({ length: KEPT_DOCUMENTS + 10 }, (_, i) =>
    create(`many-${i}`, { width: 80, sections: [{ type: 'text', value: `ticket ${i}` }] }),
  )
  world.store.commits.commit()
  const reads = storedReads(() => {
    ids.forEach((id, i) =>
      expect(world.store.jobs.documentToSend(id)).toEqual({
        width: 80,
        sections: [{ type: 'text', value: `ticket ${i}` }],
      }),
    )
  })
  expect(reads).toBe(10)
})

test('at most KEPT_DOCUMENT_BYTES are kept, counted as stored', () => {
  // Each about a tenth of the budget: ten do not fit with the next.
  const big = (i: number): PrintDocument => ({
    width: 80,
    sections: [{ type: 'text', value: `${i}`.padEnd(KEPT_DOCUMENT_BYTES / 10, 'é') }],
  })
  const ids = Array.from({ length: 12 }, (_, i) => create(`big-${i}`, big(i)))
  world.store.commits.commit()
  const reads = storedReads(() => {
    ids.forEach((id, i) => expect(world.store.jobs.documentToSend(id)?.sections).toEqual(big(i).sections))
  })
  // 'é' is two bytes in UTF-8: each document is about a fifth of the budget, so four are kept.
  expect(reads).toBe(8)
})
