// A jump of the system clock on both stores (services/clock.ts): what waits moves by the jump (an unfinished job's
// expiry, an unused pairing code, the setup link), what has ended does not (a cancelled job, a used code); the jump
// is audited once and kept for the age limits. The hub under a moved wall clock: test/delivery/clock-jumps.test.ts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { CLOCK_JUMP_SETTING, recordedJump } from '../../src/domain/clock.ts'
import { SETUP_LINK_SETTING } from '../../src/domain/accounts.ts'
import { HubClock } from '../../src/platform/hub-clock.ts'
import { Log } from '../../src/platform/log.ts'
import { normalizePairingCode } from '../../src/protocol/pairing.ts'
import type { PrintDocument } from '../../src/protocol/document.ts'
import type { Actor } from '../../src/services/actor.ts'
import { AccountService } from '../../src/services/accounts.ts'
import { ClockWatch } from '../../src/services/clock.ts'
import { JobService } from '../../src/services/jobs.ts'
import { PrinterService } from '../../src/services/printers.ts'
import { ProjectService } from '../../src/services/projects.ts'
import type { UnitRunner } from '../../src/storage/repositories.ts'
import { confinementOf } from '../../src/transports/confine.ts'
import { bothEngines, ENGINE_START, type Engine } from '../support/engines.ts'
import { tempDir } from '../support/hub.ts'

const ACTOR: Actor = { userId: 'usr_1', user: 'kim', address: '192.168.1.20' }
const AGENT = { name: 'hub', version: '1', platform: 'linux', installationId: 'inst', publicKey: 'A'.repeat(43) }
const ENGINES = bothEngines()
const DOCUMENT: PrintDocument = { width: 80, sections: [{ type: 'text', value: 'Tarte flambée' }, { type: 'cut' }] }
const DAY = 86_400_000
const YEAR = 365 * DAY

for (const [name, open] of Object.entries(ENGINES)) {
  describe(`a jump of the system clock on ${name}`, () => {
    let engine: Engine
    let units: UnitRunner
    let jobs: JobService
    let projectId: string
    const lines: string[] = []

    beforeAll(async () => {
      engine = await open()
      units = engine.units
      jobs = new JobService({ units, listener: { jobCreated() {}, cancelRequested() {} } })
      const made = await new ProjectService(units).create(ACTOR, 'Bar Luna')
      if (made.kind !== 'created') throw new Error(made.kind)
      projectId = made.project.id
      await units.write((db) => db.agents.insert(AGENT, 0, { builtin: true }))
      const added = await new PrinterService(units, jobs).add(
        ACTOR,
        projectId,
        { id: 'kitchen', connection: 'virtual' },
        confinementOf(tempDir(), []),
      )
      if (added.kind !== 'added') throw new Error(added.kind)
    })
    afterAll(async () => {
      await engine?.close()
    })

    const submit = async (key: string) => {
      const outcome = await jobs.submit({ projectId, printerId: 'kitchen', idempotencyKey: key, document: DOCUMENT })
      if (outcome.kind !== 'created') throw new Error(outcome.kind)
      return outcome.job
    }
    const expiresAt = async (id: string) => Date.parse((await jobs.get(projectId, id))!.job.expiresAt)

    test('what waits moves by the jump, what ended does not; audited once, kept for the age limits', async () => {
      const waiting = await submit('waiting')
      const cancelled = await submit('cancelled')
      await jobs.cancelForApplication(projectId, cancelled.id)
      const [waitingEnd, cancelledEnd] = [await expiresAt(waiting.id), await expiresAt(cancelled.id)]
      const unused = await units.write((db) => db.pairingCodes.create(600_000))
      const used = await units.write((db) => db.pairingCodes.create(600_000))
      await units.write((db) => db.pairingCodes.consume(normalizePairingCode(used.code), Date.parse(ENGINE_START)))
      const codeEnd = async (code: string) =>
        (await units.read((db) => db.pairingCodes.find(normalizePairingCode(code))))!.expiresAt
      const [unusedEnd, usedEnd] = [await codeEnd(unused.code), await codeEnd(used.code)]
      const accounts = new AccountService(units, () => Date.parse(ENGINE_START))
      await accounts.setupLink()
      const setupEnd = async () =>
        (JSON.parse((await units.read((db) => db.settings.get(SETUP_LINK_SETTING)))!) as { expiresAt: number })
          .expiresAt
      const linkEnd = await setupEnd()

      const at = { wall: Date.parse(ENGINE_START), monotonic: 0 }
      const clock = new HubClock({ wall: () => at.wall, monotonic: () => at.monotonic })
      const log = new Log({ format: 'text', level: 'info', journal: false }, (line) => lines.push(line)).for('clock')
      const followed: number[] = []
      const watch = new ClockWatch(units, clock, log, [(byMs) => followed.push(byMs)])
      expect(await watch.look()).toBeUndefined()
      at.wall += YEAR
      expect(await watch.look()).toMatchObject({ byMs: YEAR })
      expect(await watch.look()).toBeUndefined()
      expect(clock.now()).toBe(at.wall)
      expect(followed).toEqual([YEAR])

      expect(await expiresAt(waiting.id)).toBe(waitingEnd + YEAR)
      expect(await expiresAt(cancelled.id)).toBe(cancelledEnd)
      expect(await codeEnd(unused.code)).toBe(unusedEnd + YEAR)
      expect(await codeEnd(used.code)).toBe(usedEnd)
      expect(await setupEnd()).toBe(linkEnd + YEAR)
      const audit = await units.read((db) => db.audit.page(10))
      expect(audit.filter((entry) => entry.action === 'hub.clock')).toHaveLength(1)
      expect(recordedJump(await units.read((db) => db.settings.get(CLOCK_JUMP_SETTING)))).toEqual({
        at: at.wall,
        byMs: YEAR,
      })
      expect(lines.filter((line) => line.includes('the system clock jumped forward by 365 days'))).toHaveLength(1)
    })

    test('a move that fails (a disk error) is made at the next look, whichever way the clock went', async () => {
      const waiting = await submit('waits-through-failures')
      const end = await expiresAt(waiting.id)
      let failures = 1
      const failingOnce: UnitRunner = {
        ...units,
        write: (work, options) =>
          failures-- > 0 ? Promise.reject(new Error('disk I/O error')) : units.write(work, options),
      }
      const at = { wall: Date.parse(ENGINE_START) + 2 * YEAR, monotonic: 0 }
      const clock = new HubClock({ wall: () => at.wall, monotonic: () => at.monotonic })
      const watch = new ClockWatch(failingOnce, clock, Log.silent().for('clock'))
      for (const byMs of [-DAY, DAY]) {
        failures = 1
        at.wall += byMs
        const before = await expiresAt(waiting.id)
        await expect(watch.look()).rejects.toThrow('disk I/O error')
        expect(await expiresAt(waiting.id)).toBe(before)
        expect(await watch.look()).toMatchObject({ byMs })
        expect(await expiresAt(waiting.id)).toBe(before + byMs)
        expect(clock.now()).toBe(at.wall)
        expect(await watch.look()).toBeUndefined()
      }
      expect(await expiresAt(waiting.id)).toBe(end)
    })
  })
}
