// The job list's yardstick in `bun run bench api`: the least any server in this runtime can do
// for the same page. Bun.serve and bun:sqlite alone, no routing, API key, log or request limits:
// each request runs the hub's own query and projection (store/jobs.ts newestJobs) over the same
// seeded database and answers the same JSON. It prints its port, then serves until killed.
//   bun scripts/bench-list-floor.ts DATABASE PROJECT_ID
import { Database } from 'bun:sqlite'
import type { JobState } from '../src/protocol/job.ts'
import { newestJobs } from '../src/store/jobs.ts'

const [file, projectId] = process.argv.slice(2)
if (!file || !projectId) throw new Error('usage: bench-list-floor.ts DATABASE PROJECT_ID')
const db = new Database(file, { readonly: true, strict: true })

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch(request) {
    const state = new URL(request.url).searchParams.get('state') ?? undefined
    return Response.json({ jobs: newestJobs(db, projectId, state as JobState | undefined), keyPrefix: 'floor' })
  },
})
console.log(server.port)
