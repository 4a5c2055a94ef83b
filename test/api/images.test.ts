// A project's stored images and the logo section, against a real hub: uploaded once, printed by
// name, each job keeping the image it was made with; names, data and counts checked; scopes and
// projects kept apart; a name with no image is a 400 naming the section, and makes nothing.
import { adminToken } from '../support/fixtures.ts'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { MAX_PROJECT_IMAGES } from '../../src/protocol/project-images.ts'
import type { Job } from '../../src/protocol/job.ts'
import { blackPng, gradientJpeg, PNG_1X1 } from '../support/images.ts'
import { jobBody, startTestHub, submitJob, type TestHub } from '../support/hub.ts'
import { previewOf } from '../support/virtual.ts'
import { waitFor } from '../support/wait.ts'

let t: TestHub
let token: string
beforeAll(async () => {
  t = await startTestHub()
  token = adminToken(t.hub.store)
})
afterAll(() => t.stop())

const images = (method: string, suffix = '', body?: unknown, key?: string) =>
  t.request(method, `/v1/projects/${t.projectId}/images${suffix}`, { body, ...(key ? { key } : {}) })
const job = async (id: string): Promise<Job> =>
  (await (await t.request('GET', `/v1/projects/${t.projectId}/jobs/${id}`)).json()).job
const storedDocument = async (id: string) =>
  (await (await t.request('GET', `/admin/v1/jobs/${id}`, { key: token })).json()).document
const jobCount = () => t.hub.store.db.query<{ n: number }, []>('SELECT count(*) AS n FROM jobs').get()!.n

describe('stored images and logo sections', () => {
  test(
    'uploaded once (201, then 200 when replaced), listed without data; a logo ' +
      'section prints it, and each job keeps the image it was made with',
    async () => {
      const logo = blackPng(200, 40)
      const made = await images('PUT', '/cafe-logo', { mediaType: 'image/png', data: logo })
      expect(made.status).toBe(201)
      expect(await made.json()).toEqual({
        image: {
          name: 'cafe-logo',
          mediaType: 'image/png',
          width: 200,
          height: 40,
          bytes: Buffer.from(logo, 'base64').length,
          updatedAt: expect.any(String),
        },
      })
      expect((await (await images('GET')).json()).images.map((i: { name: string }) => i.name)).toEqual(['cafe-logo'])
      expect((await (await images('GET', '/cafe-logo')).json()).image).toMatchObject({ width: 200, height: 40 })

      const first = await submitJob(t, {
        document: {
          width: 80,
          sections: [
            { type: 'logo', name: 'cafe-logo' },
            { type: 'text', value: 'Welcome' },
          ],
        },
      })
      await waitFor(async () => (await job(first.id)).state === 'COMPLETED')
      const { receipt } = previewOf(t.hub.virtualPrinters.printed('virtual').at(-1)!)
      expect(receipt.blocks[0]).toMatchObject({ kind: 'image', width: 200, height: 40, alignment: 'center' })
      expect((await storedDocument(first.id)).sections[0]).toEqual({
        type: 'image',
        mediaType: 'image/png',
        data: logo,
      })

      // Replaced: new jobs print the new one; the first keeps its own.
      const replaced = await images('PUT', '/cafe-logo', { mediaType: 'image/jpeg', data: gradientJpeg(64, 32) })
      expect(replaced.status).toBe(200)
      const second = await submitJob(t, { document: { width: 80, sections: [{ type: 'logo', name: 'cafe-logo' }] } })
      expect((await storedDocument(second.id)).sections[0]).toMatchObject({ type: 'image', mediaType: 'image/jpeg' })
      expect((await storedDocument(first.id)).sections[0]).toEqual({
        type: 'image',
        mediaType: 'image/png',
        data: logo,
      })

      expect((await images('DELETE', '/cafe-logo')).status).toBe(204)
      expect((await images('DELETE', '/cafe-logo')).status).toBe(404)
      expect((await images('GET', '/cafe-logo')).status).toBe(404)
    },
  )

  test(
    'a logo the project has no image of is 400 naming the section, and makes ' +
      'nothing; nor does another project see this one',
    async () => {
      await images('PUT', '/mine', { mediaType: 'image/png', data: PNG_1X1 })
      const other = t.hub.store.projects.create('elsewhere')
      const otherKey = t.hub.store.apiKeys.create(other.id, ['jobs:read', 'jobs:write'], null).secret
      t.hub.store.printers.add({
        projectId: other.id,
        remoteId: 'bar',
        name: null,
        connection: 'virtual://bar',
        profile: 'generic-80mm',
        width: 80,
        agentId: t.hub.store.agents.builtin()!.id,
      })
      const count = jobCount()
      const missing = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, {
        body: jobBody({
          document: {
            width: 80,
            sections: [
              { type: 'text', value: 'x' },
              { type: 'logo', name: 'nope' },
            ],
          },
        }),
      })
      expect(missing.status).toBe(400)
      expect((await missing.json()).error.details).toEqual([
        {
          path: 'document.sections[1].name',
          message: expect.stringContaining('names no image of this project ("nope")'),
        },
      ])
      const foreign = await t.request('POST', `/v1/projects/${other.id}/jobs`, {
        key: otherKey,
        body: jobBody({ printerId: 'bar', document: { width: 80, sections: [{ type: 'logo', name: 'mine' }] } }),
      })
      expect(foreign.status).toBe(400)
      expect(
        (await t.request('GET', `/v1/projects/${other.id}/images`, { key: otherKey }).then((r) => r.json())).images,
      ).toEqual([])
      expect(jobCount()).toBe(count)
    },
  )

  test(
    'bad names, bad data and too many images are refused, naming what; ' +
      'reading needs jobs:read, writing jobs:write',
    async () => {
      for (const [suffix, body, status, path] of [
        ['/-starts-with-dash', { mediaType: 'image/png', data: PNG_1X1 }, 400, 'name'],
        [`/${'x'.repeat(65)}`, { mediaType: 'image/png', data: PNG_1X1 }, 400, 'name'],
        ['/ok', { mediaType: 'image/gif', data: PNG_1X1 }, 400, 'mediaType'],
        ['/ok', { mediaType: 'image/png', data: 'not base64!' }, 400, 'data'],
        ['/ok', { mediaType: 'image/jpeg', data: PNG_1X1 }, 400, 'data'],
        ['/ok', { mediaType: 'image/png' }, 400, 'data'],
      ] as const) {
        const answer = await images('PUT', suffix, body)
        expect({ suffix, status: answer.status, path: (await answer.json()).error.details?.[0]?.path }).toEqual({
          suffix,
          status,
          path,
        })
      }
      const readOnly = t.hub.store.apiKeys.create(t.projectId, ['jobs:read'], null).secret
      expect((await images('PUT', '/ok', { mediaType: 'image/png', data: PNG_1X1 }, readOnly)).status).toBe(403)
      expect((await images('GET', '', undefined, readOnly)).status).toBe(200)
      const have = (await (await images('GET')).json()).images.length
      for (let i = have; i < MAX_PROJECT_IMAGES; i++)
        expect((await images('PUT', `/logo-${i}`, { mediaType: 'image/png', data: PNG_1X1 })).status).toBe(201)
      const over = await images('PUT', '/one-too-many', { mediaType: 'image/png', data: PNG_1X1 })
      expect(over.status).toBe(409)
      expect((await over.json()).error.message).toContain(`at most ${MAX_PROJECT_IMAGES} images`)
      // Replacing one is still fine at the limit.
      expect(
        (await images('PUT', `/logo-${MAX_PROJECT_IMAGES - 1}`, { mediaType: 'image/png', data: PNG_1X1 })).status,
      ).toBe(200)
    },
  )
})
