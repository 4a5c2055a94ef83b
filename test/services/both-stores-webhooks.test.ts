// Webhooks on both stores: made with a secret shown once, listed with their recent deliveries, sent a test event,
// enabled again after failing, deleted (an application only its own project's), the same on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Actor } from '../../src/services/actor.ts'
import { WEBHOOK_TEST_EVENT, WebhookService } from '../../src/services/project-webhooks.ts'
import { ProjectService } from '../../src/services/projects.ts'
import { bothEngines, type Engine } from '../support/engines.ts'

const ACTOR: Actor = { userId: 'usr_1', user: 'kim', address: '192.168.1.20' }
const ENGINES = bothEngines()

for (const [name, open] of Object.entries(ENGINES)) {
  describe(`webhooks on ${name}`, () => {
    let engine: Engine
    let webhooks: WebhookService
    let projectId: string
    let woken = 0

    beforeAll(async () => {
      engine = await open()
      webhooks = new WebhookService(
        engine.units,
        () => Date.parse('2026-12-07T10:00:00Z'),
        () => void woken++,
      )
      const made = await new ProjectService(engine.units).create(ACTOR, 'Bar Luna')
      if (made.kind !== 'created') throw new Error(made.kind)
      projectId = made.project.id
    })

    afterAll(async () => {
      await engine?.close()
    })

    test('made with its secret once, listed, reported with its project and a test delivery', async () => {
      const { webhook, secret } = await webhooks.create(ACTOR, projectId, {
        url: 'https://pos.example/hooks',
        events: ['job.created', 'job.state_changed', 'job.created'],
        description: 'POS',
      })
      expect(secret).toMatch(/^whsec_/)
      expect(webhook).toMatchObject({ events: ['job.created', 'job.state_changed'], disabledAt: null })
      expect(await webhooks.list(projectId)).toEqual([webhook])
      expect(await webhooks.get(webhook.id)).toEqual(webhook)
      const sent = await webhooks.sendTest(ACTOR, webhook.id)
      expect(sent).toMatchObject({ kind: 'queued', messageId: expect.stringMatching(/^msg_test_/) })
      expect(woken).toBe(1)
      expect(await webhooks.sendTest(ACTOR, 'whk_none')).toEqual({ kind: 'unknown' })
      const [report] = await webhooks.reports()
      expect(report).toMatchObject({ id: webhook.id, projectName: 'Bar Luna' })
      expect(report!.deliveries).toEqual([
        {
          messageId: (sent as { messageId: string }).messageId,
          type: WEBHOOK_TEST_EVENT,
          attempts: 0,
          lastStatus: null,
          lastError: null,
          deliveredAt: null,
          createdAt: '2026-12-07T10:00:00.000Z',
        },
      ])
    })

    test('enabled again only when disabled; deleted once, and by its own project only', async () => {
      const [webhook] = await webhooks.list(projectId)
      expect(await webhooks.enable(ACTOR, webhook!.id)).toEqual(webhook)
      expect(woken).toBe(1)
      expect(await webhooks.enable(ACTOR, 'whk_none')).toBeUndefined()
      expect(await webhooks.delete(ACTOR, webhook!.id, 'prj_other')).toBe(false)
      expect(await webhooks.delete(ACTOR, webhook!.id, projectId)).toBe(true)
      expect(await webhooks.delete(ACTOR, webhook!.id)).toBe(false)
      expect(await webhooks.list(projectId)).toEqual([])
      const actions = (await engine.units.read((db) => db.audit.page(10))).map((entry) => entry.action)
      expect(actions).toEqual(['webhooks.delete', 'webhooks.test', 'webhooks.create', 'projects.create'])
    })
  })
}
