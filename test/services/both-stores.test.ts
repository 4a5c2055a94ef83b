// The operations ported to units of work, run on both stores by one suite: SQLite (a real file) and PostgreSQL (a
// real server), with the same outcomes, the same audit entries, and the same rollback when a unit fails.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Actor } from '../../src/services/actor.ts'
import { LiveSettings } from '../../src/services/live-settings.ts'
import { KeyService, ProjectService } from '../../src/services/projects.ts'
import { DestinationService } from '../../src/services/destinations.ts'
import { ImageService } from '../../src/services/images.ts'
import { MAX_PROJECT_IMAGES } from '../../src/protocol/project-images.ts'
import { PNG_1X1 } from '../support/images.ts'
import { editableSettingsOf, resolveConfig } from '../../src/hub/config.ts'
import { bothEngines, type Engine } from '../support/engines.ts'

const MINUTE = 60_000
const ACTOR: Actor = { userId: 'usr_1', user: 'kim', address: '192.168.1.20' }

const ENGINES = bothEngines()

for (const [name, open] of Object.entries(ENGINES)) {
  describe(`projects and keys on ${name}`, () => {
    let engine: Engine
    let projects: ProjectService
    let keys: KeyService

    beforeAll(async () => {
      engine = await open()
      projects = new ProjectService(engine.units)
      keys = new KeyService(engine.units)
    })

    afterAll(async () => {
      await engine?.close()
    })

    const audit = () => engine.units.read((db) => db.audit.page(10))

    test('a project: named without the spaces around it, listed, found; a blank name refused', async () => {
      const made = await projects.create(ACTOR, '  Bar Luna  ')
      if (made.kind !== 'created') throw new Error(made.kind)
      expect(made.project).toMatchObject({ name: 'Bar Luna', openJobs: 0, createdAt: '2026-12-07T10:00:00.000Z' })
      expect(made.project.id).toMatch(/^prj_[0-9a-f]{32}$/)
      expect(await projects.create(ACTOR, '   ')).toMatchObject({ kind: 'invalid' })
      expect(await projects.get(made.project.id)).toEqual(made.project)
      expect(await projects.get('prj_none')).toBeUndefined()
      expect(await projects.list()).toEqual([made.project])
      expect((await audit()).map(({ action, target, user, address }) => ({ action, target, user, address }))).toEqual([
        { action: 'projects.create', target: 'Bar Luna', user: 'kim', address: '192.168.1.20' },
      ])
    })

    test('a key: its secret once, its use recorded at most once a quarter of an hour, revoked once', async () => {
      const [project] = await projects.list()
      expect(await keys.create(ACTOR, 'prj_none', { scopes: ['jobs:read'], name: null })).toEqual({
        kind: 'unknown_project',
      })
      expect(await keys.create(ACTOR, project!.id, { scopes: ['jobs:print'], name: null })).toEqual({
        kind: 'invalid',
        scope: 'jobs:print',
      })
      const made = await keys.create(ACTOR, project!.id, {
        scopes: ['jobs:write', 'jobs:read', 'jobs:read'],
        name: 'POS',
      })
      if (made.kind !== 'created') throw new Error(made.kind)
      expect(made.key).toMatchObject({ scopes: ['jobs:read', 'jobs:write'], name: 'POS', lastUsedAt: null })
      expect(made.secret.startsWith(made.key.keyPrefix)).toBe(true)
      expect(await keys.use(made.secret)).toMatchObject({ id: made.key.id, lastUsedAt: '2026-12-07T10:00:00.000Z' })
      engine.advance(14 * MINUTE)
      expect((await keys.use(made.secret))?.lastUsedAt).toBe('2026-12-07T10:00:00.000Z')
      engine.advance(MINUTE + MINUTE / 2)
      expect((await keys.use(made.secret))?.lastUsedAt).toBe('2026-12-07T10:15:30.000Z')
      expect(await keys.use('phk_not-a-key')).toBeUndefined()
      expect(await keys.use(`${made.secret.slice(0, -1)}x`)).toBeUndefined()
      expect(await keys.list(project!.id)).toHaveLength(1)
      const revoked = await keys.revoke(ACTOR, made.key.id)
      expect(revoked).toMatchObject({ kind: 'revoked', key: { revokedAt: '2026-12-07T10:15:30.000Z' } })
      engine.advance(MINUTE)
      expect(await keys.revoke(ACTOR, made.key.id)).toMatchObject({
        kind: 'already_revoked',
        key: { revokedAt: '2026-12-07T10:15:30.000Z' },
      })
      expect(await keys.revoke(ACTOR, 'apk_none')).toEqual({ kind: 'unknown' })
      expect(await keys.use(made.secret)).toBeUndefined()
      expect((await audit()).map((entry) => entry.action)).toEqual(['keys.revoke', 'keys.create', 'projects.create'])
    })

    test("settings: saved with the audit entry of what changed, taken by another process's holder", async () => {
      const defaults = editableSettingsOf(resolveConfig({ data: '/nonexistent' }, {}))
      const hub = await LiveSettings.open(engine.units, defaults, ['serverName'])
      const cli = await LiveSettings.open(engine.units, defaults, [])
      expect(await cli.update({ retentionDays: 45, serverName: 'Bar Luna' }, ACTOR)).toMatchObject({ ok: true })
      expect(await cli.update({ retentionDays: 0 }, ACTOR)).toMatchObject({ ok: false, field: 'retentionDays' })
      expect(hub.values.retentionDays).toBe(defaults.retentionDays)
      expect(await hub.reload()).toBe(true)
      // Pinned by the hub's environment: the name another process saved is not taken.
      expect(hub.values).toMatchObject({ retentionDays: 45, serverName: defaults.serverName })
      expect(await hub.reload()).toBe(false)
      expect((await audit())[0]).toMatchObject({
        action: 'settings.set',
        target: 'server-name Bar Luna, retention-days 45',
      })
    })

    test('destinations: printers checked in the change, names taken refused, listed with names, deleted', async () => {
      const destinations = new DestinationService(engine.units)
      const [project] = await projects.list()
      const projectId = project!.id
      await engine.addPrinter(projectId, 'prn_0001', 'bar')
      await engine.addPrinter(projectId, 'prn_0002', 'kitchen')
      expect(await destinations.create(ACTOR, 'prj_none', 'x', { mode: 'failover', printers: ['bar'] })).toEqual({
        kind: 'unknown',
      })
      expect(
        await destinations.create(ACTOR, projectId, 'food', { mode: 'failover', printers: ['bar', 'cellar'] }),
      ).toEqual({
        kind: 'invalid',
        issues: [{ path: 'printers[1]', message: 'is no printer of this project ("cellar")' }],
      })
      expect(
        await destinations.create(ACTOR, projectId, 'food', { mode: 'all', printers: ['bar', 'prn_0001'] }),
      ).toEqual({ kind: 'invalid', issues: [{ path: 'printers', message: 'names one printer twice' }] })
      expect(await destinations.create(ACTOR, projectId, 'kitchen', { mode: 'all', printers: ['bar'] })).toEqual({
        kind: 'taken',
        name: 'kitchen',
      })
      const made = await destinations.create(ACTOR, projectId, 'food', {
        mode: 'failover',
        printers: ['kitchen', 'bar'],
      })
      expect(made).toMatchObject({ kind: 'saved', destination: { name: 'food', printers: ['prn_0002', 'prn_0001'] } })
      expect(await destinations.create(ACTOR, projectId, 'food', { mode: 'all', printers: ['bar'] })).toEqual({
        kind: 'taken',
        name: 'food',
      })
      expect(await destinations.set(ACTOR, projectId, 'food', { mode: 'all', printers: ['bar'] })).toMatchObject({
        kind: 'saved',
        destination: { mode: 'all', printers: ['prn_0001'] },
      })
      expect(await destinations.reports()).toMatchObject([
        { name: 'food', projectName: 'Bar Luna', printerNames: ['bar'] },
      ])
      expect((await destinations.get(projectId, 'food'))?.mode).toBe('all')
      expect(await destinations.delete(ACTOR, projectId, 'food')).toBe(true)
      expect(await destinations.delete(ACTOR, projectId, 'food')).toBe(false)
      expect(await destinations.list(projectId)).toEqual([])
      expect((await audit()).slice(0, 3).map((entry) => entry.action)).toEqual([
        'destinations.delete',
        'destinations.set',
        'destinations.create',
      ])
    })

    test('changes at the same time are each made as if alone: one key revoked once, one audit entry', async () => {
      const [project] = await projects.list()
      const made = await keys.create(ACTOR, project!.id, { scopes: ['jobs:read'], name: 'twice' })
      if (made.kind !== 'created') throw new Error(made.kind)
      const entries = (await audit()).length
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => keys.revoke(ACTOR, made.key.id)))
      expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual([
        'already_revoked',
        'already_revoked',
        'already_revoked',
        'already_revoked',
        'already_revoked',
        'revoked',
      ])
      expect((await audit()).length).toBe(entries + 1)
    })

    test('images: stored, replaced, sized, counted within the change, deleted', async () => {
      let full = false
      const images = new ImageService(engine.units, {
        now: () => ({ full, freeMb: full ? 0 : 1_000, minFreeMb: 100 }),
      })
      const [project] = await projects.list()
      const projectId = project!.id
      const png = { mediaType: 'image/png' as const, data: PNG_1X1 }
      const first = await images.put(ACTOR, projectId, 'logo', png)
      expect(first).toMatchObject({ kind: 'stored', created: true, image: { name: 'logo', width: 1, height: 1 } })
      if (first.kind !== 'stored') throw new Error(first.kind)
      expect(first.image.bytes).toBe(Buffer.from(PNG_1X1, 'base64').length)
      expect(await images.put(ACTOR, projectId, 'logo', png)).toMatchObject({ kind: 'stored', created: false })
      expect(await images.put(ACTOR, projectId, 'bad', { mediaType: 'image/png', data: 'AAAA' })).toMatchObject({
        kind: 'invalid',
      })
      full = true
      expect(await images.put(ACTOR, projectId, 'other', png)).toEqual({ kind: 'storage_full' })
      full = false
      const more = Array.from({ length: MAX_PROJECT_IMAGES }, (_, i) => images.put(ACTOR, projectId, `logo-${i}`, png))
      const outcomes = (await Promise.all(more)).map((outcome) => outcome.kind)
      expect(outcomes.filter((kind) => kind === 'stored')).toHaveLength(MAX_PROJECT_IMAGES - 1)
      expect(outcomes.filter((kind) => kind === 'too_many')).toHaveLength(1)
      expect(await images.list(projectId)).toHaveLength(MAX_PROJECT_IMAGES)
      expect((await images.get(projectId, 'logo'))?.mediaType).toBe('image/png')
      expect(await images.delete(ACTOR, projectId, 'logo')).toBe(true)
      expect(await images.delete(ACTOR, projectId, 'logo')).toBe(false)
      expect(await images.get(projectId, 'logo')).toBeUndefined()
      expect((await audit())[0]).toMatchObject({ action: 'images.delete', target: 'logo' })
    })

    test('a unit that fails writes nothing: the project and its audit entry both go', async () => {
      const before = (await projects.list()).length
      const entries = (await audit()).length
      await expect(
        engine.units.write(function* (db) {
          yield* db.projects.create('Half made')
          yield* db.audit.record({ userId: null, user: null, action: 'projects.create', target: 'Half made' })
          throw new Error('the disk is full')
        }),
      ).rejects.toThrow('the disk is full')
      expect(await projects.list()).toHaveLength(before)
      expect(await audit()).toHaveLength(entries)
    })
  })
}
