// The hub's worker threads in the executable that runs (the compiled one under npm run
// test:binary): a job with an image prints through the render worker, and its receipt picture for
// the dashboard is drawn by the receipt worker.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { cliJson } from '../support/cli.ts'
import { tempDir } from '../support/hub.ts'
import { blackPng } from '../support/images.ts'
import { spawnServe, type ServeProcess } from '../support/serve.ts'
import { waitFor } from '../support/wait.ts'

let dir: string
let hub: ServeProcess

beforeAll(async () => {
  dir = tempDir()
  hub = await spawnServe(dir, { json: true })
})
afterAll(async () => {
  await hub.stop()
  rmSync(dir, { recursive: true, force: true })
})

test('a job with an image prints, and its receipt picture is a PNG as tall as the receipt', async () => {
  const { projectId, apiKey } = hub.listening!.firstStart
  const document = {
    width: 80,
    sections: [
      { type: 'text', value: 'With a logo' },
      { type: 'image', mediaType: 'image/png', data: blackPng(576, 300) },
      { type: 'cut' },
    ],
  }
  const posted = await fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ printerId: 'demo', idempotencyKey: 'with-an-image', document }),
  })
  expect(posted.status).toBe(202)
  const { job } = (await posted.json()) as { job: { id: string } }
  await cliJson(['users', 'add', 'tech', '--role', 'technician', '--data', dir], {}, 'a long enough password\n')
  const token = (
    await cliJson<{ token: string }>(['admin', 'create-token', '--user', 'tech', '--name', 'tests', '--data', dir])
  ).token
  const admin = { authorization: `Bearer ${token}` }
  await waitFor(
    async () =>
      (
        (await (await fetch(`${hub.url}/admin/v1/jobs/${job.id}`, { headers: admin })).json()) as {
          job: { state: string }
        }
      ).job.state === 'COMPLETED',
    10_000,
  )
  const picture = await fetch(`${hub.url}/admin/v1/jobs/${job.id}/preview.png`, { headers: admin })
  expect(picture.status).toBe(200)
  const png = new Uint8Array(await picture.arrayBuffer())
  expect([...png.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47])
  const view = new DataView(png.buffer)
  expect(view.getUint32(16)).toBe(576)
  expect(view.getUint32(20)).toBeGreaterThan(300)
}, 30_000)
