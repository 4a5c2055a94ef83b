// The dashboard's accounts, sessions and admin tokens on both stores: the same outcomes and audit entries on SQLite
// and PostgreSQL, and the rules that must hold when changes come at once (one setup link makes one owner; two owners
// disabling each other leave one who can sign in).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { AccountService } from '../../src/services/accounts.ts'
import type { Actor } from '../../src/services/actor.ts'
import { AdminAccess } from '../../src/services/admin-access.ts'
import { bothEngines, ENGINE_START, type Engine } from '../support/engines.ts'

const HOUR = 3_600_000
const MACHINE: Actor = { userId: null, user: null, address: null }
const PLACE = { address: '192.168.1.20', userAgent: 'Phone' }
const ENGINES = bothEngines()

for (const [name, open] of Object.entries(ENGINES)) {
  describe(`accounts on ${name}`, () => {
    let engine: Engine
    let accounts: AccountService
    let access: AdminAccess
    let clock = Date.parse(ENGINE_START)

    beforeAll(async () => {
      engine = await open()
      accounts = new AccountService(engine.units, () => clock)
      access = new AdminAccess(engine.units)
    })

    afterAll(async () => {
      await engine?.close()
    })

    const advance = (ms: number) => {
      engine.advance(ms)
      clock += ms
    }
    const actions = async () => (await engine.units.read((db) => db.audit.page(50))).map((entry) => entry.action)

    test('the setup link: five uses at once make one owner; then it is used up and no new one is made', async () => {
      expect(await accounts.any()).toBe(false)
      const token = await accounts.setupLink()
      if (token === undefined) throw new Error('no setup link')
      expect(
        await accounts.setUpFirstOwner('wrong', { name: 'x', role: 'owner', password: 'long enough 1' }, 'a'),
      ).toEqual({ kind: 'link_not_valid' })
      const outcomes = await Promise.all(
        [1, 2, 3, 4, 5].map((n) =>
          accounts.setUpFirstOwner(token, { name: `Owner ${n}`, role: 'owner', password: 'long enough 1' }, 'a'),
        ),
      )
      expect(outcomes.filter((o) => o.kind === 'added')).toHaveLength(1)
      expect(outcomes.filter((o) => o.kind === 'link_not_valid')).toHaveLength(4)
      expect(await accounts.count()).toBe(1)
      expect(await accounts.setupLink()).toBeUndefined()
      expect(await actions()).toEqual(['users.create'])
    })

    test('names are unique whatever their case; sign-in by name, or by password alone with one account', async () => {
      const [owner] = await accounts.list()
      expect(await accounts.checkSignIn(undefined, 'long enough 1')).toEqual(owner)
      expect(await accounts.checkSignIn(owner!.name.toUpperCase(), 'long enough 1')).toEqual(owner)
      expect(await accounts.checkSignIn(owner!.name, 'wrong password')).toBeUndefined()
      expect(
        await accounts.add(MACHINE, { name: owner!.name.toLowerCase(), role: 'staff', password: 'x'.repeat(10) }),
      ).toEqual({ kind: 'taken' })
      const added = await accounts.add(MACHINE, { name: 'Kim', role: 'owner', password: 'password of kim' })
      expect(added).toMatchObject({ kind: 'added', user: { name: 'Kim', role: 'owner', disabled: false } })
      expect(await accounts.checkSignIn(undefined, 'password of kim')).toBeUndefined()
      expect((await accounts.named('KIM'))?.name).toBe('Kim')
      expect((await accounts.list()).map((user) => user.name)).toEqual(['Kim', owner!.name])
      expect(await accounts.passwordGeneration('kim')).toMatch(/^[0-9a-f]{16}$/)
      expect(await accounts.passwordGeneration('nobody here')).toBe('nobody')
    })

    test('two owners disabling each other at once: one is disabled, one owner can still sign in', async () => {
      const [kim, first] = await accounts.list()
      const outcomes = await Promise.all([
        accounts.change(MACHINE, kim!.id, { disabled: true }),
        accounts.change(MACHINE, first!.id, { disabled: true }),
      ])
      expect(outcomes.map((o) => o.kind).sort()).toEqual(['changed', 'last_owner'])
      expect((await accounts.list()).filter((user) => !user.disabled)).toHaveLength(1)
      const disabled = (await accounts.list()).find((user) => user.disabled)!
      expect(await accounts.change(MACHINE, disabled.id, { disabled: false })).toMatchObject({ kind: 'changed' })
      expect(await accounts.change(MACHINE, 'usr_none', { role: 'staff' })).toEqual({ kind: 'unknown' })
    })

    test('sessions: live until 12 hours idle, seen once a minute at most, ended one or all but one', async () => {
      const kim = (await accounts.named('Kim'))!
      const first = await access.signIn(kim, PLACE)
      const second = await access.signIn(kim, PLACE)
      expect((await access.session(first.token))?.user.id).toBe(kim.id)
      expect(await access.session('not a token')).toBeUndefined()
      advance(30_000)
      expect((await access.session(first.token))?.session.lastSeenAt).toBe(ENGINE_START)
      advance(11 * HOUR)
      expect((await access.session(first.token))?.session.lastSeenAt).not.toBe(ENGINE_START)
      advance(2 * HOUR)
      expect(await access.session(second.token)).toBeUndefined()
      expect((await access.liveSessions(kim.id)).map((s) => s.id)).toEqual([first.session.id])
      const third = await access.signIn(kim, PLACE)
      // The idle one is marked ended too.
      expect(await access.revokeOtherSessions(MACHINE, kim.id, third.session.id)).toBe(2)
      expect(await access.session(first.token)).toBeUndefined()
      expect(await access.revokeSession(MACHINE, kim.id, third.session.id)).toBe(true)
      expect(await access.revokeSession(MACHINE, kim.id, third.session.id)).toBe(false)
      expect(await access.session(third.token)).toBeUndefined()
    })

    test('admin tokens: used until revoked or their account is disabled; a new password signs out', async () => {
      const kim = (await accounts.named('Kim'))!
      const made = await access.createToken(MACHINE, kim, 'script')
      expect(made.secret).toMatch(/^pha_[A-Za-z0-9_-]{43}$/)
      expect(made.secret.startsWith(made.token.tokenPrefix)).toBe(true)
      expect((await access.token(made.secret))?.token.lastUsedAt).toBe(new Date(clock).toISOString())
      expect(await access.token(`pha_${'A'.repeat(43)}`)).toBeUndefined()
      const session = await access.signIn(kim, PLACE)
      expect(await accounts.change(MACHINE, kim.id, { disabled: true })).toMatchObject({ kind: 'changed' })
      expect(await access.token(made.secret)).toBeUndefined()
      expect(await access.session(session.token)).toBeUndefined()
      await accounts.change(MACHINE, kim.id, { disabled: false })
      expect(await access.token(made.secret)).toBeDefined()
      expect((await access.tokens(kim.id)).map((token) => token.id)).toEqual([made.token.id])
      expect(await access.revokeToken(MACHINE, kim.id, made.token.id)).toBe(true)
      expect(await access.revokeToken(MACHINE, kim.id, made.token.id)).toBe(false)
      expect(await access.token(made.secret)).toBeUndefined()
      const again = await access.signIn(kim, PLACE)
      const changed = await accounts.setPassword(MACHINE, kim.id, { password: 'a new password' })
      expect(changed?.ended).toBe(1)
      expect(await access.session(again.token)).toBeUndefined()
      expect(await accounts.checkPassword(kim.id, 'a new password')).toBe(true)
      expect((await accounts.setLanguage(MACHINE, kim.id, 'de'))?.language).toBe('de')
      await access.signInFailed('kim', '192.168.1.99')
      const [failed] = await engine.units.read((db) => db.audit.page(1))
      expect(failed).toMatchObject({ action: 'session.sign_in_failed', user: 'Kim', address: '192.168.1.99' })
    })
  })
}
