// Printer connections stay where printers are: device files of printer families, the output
// folder of the data directory, network printers other than the hub itself. The rules, then the
// attacks against a real hub: through the admin API (a clear 400 naming the rule), and a record
// written before the rules (refused when used: nothing reaches the file).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseConnectionUri } from '../../src/domain/connection-uri.ts'
import { PrinterEmulator } from '../../src/emulator/emulator.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import type { Job } from '../../src/protocol/job.ts'
import { confineConnection, confinementOf, openConfinedFile } from '../../src/transports/confine.ts'
import { setPrinterConnection, adminToken } from '../support/fixtures.ts'
import { startTestHub, tempDir, type TestHub } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

let dir: string
beforeAll(() => {
  dir = tempDir()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function check(uri: string, ownPorts: number[] = [8080]) {
  const parsed = parseConnectionUri(uri)
  if (!parsed.ok) throw new Error(parsed.message)
  return confineConnection(parsed.connection, confinementOf(dir, ownPorts))
}

describe('device files', () => {
  test('serial ports and usblp printers by their names, while unplugged too', () => {
    for (const uri of [
      'serial:///dev/ttyUSB7',
      'serial:///dev/ttyACM0',
      'serial:///dev/ttyAMA0',
      'serial:///dev/serial/by-id/usb-FTDI_FT232R-if00-port0',
      'usb:///dev/usb/lp3',
    ]) {
      expect(check(uri)).toEqual({ ok: true })
    }
  })

  test('a path that climbs out of /dev, or a device that is not a printer, is refused naming the rule', () => {
    expect(check('usb:///dev/../etc/passwd')).toEqual({
      ok: false,
      message: expect.stringContaining('is not a plain path under /dev: a USB printer file is /dev/usb/lp*'),
    })
    expect(check('usb:///dev/usb/../../etc/shadow')).toMatchObject({ ok: false })
    expect(check('serial:///dev/../etc/passwd')).toMatchObject({
      ok: false,
      message: expect.stringContaining('/etc/passwd'),
    })
    // Real device files of other kinds: the null device, the console, a disk name.
    expect(check('serial:///dev/null')).toEqual({
      ok: false,
      message: expect.stringContaining('/dev/null is not a printer device: a serial printer is a serial port'),
    })
    expect(check('usb:///dev/tty')).toMatchObject({ ok: false })
    expect(check('usb:///dev/sda')).toMatchObject({ ok: false })
    expect(check('serial:///dev/printhub-kitchen')).toMatchObject({ ok: false })
  })

  test("a pseudo-terminal of printhub's own user (the emulator's) is a printer; a link to anything else is not", () => {
    const emulator = PrinterEmulator.serial({ profile: findProfile('generic-80mm')!, width: 80 })
    try {
      expect(check(`serial://${emulator.serialPath}`)).toEqual({ ok: true })
      expect(check(`usb://${emulator.serialPath}`)).toEqual({ ok: true })
    } finally {
      emulator.stop()
    }
  })
})

describe('file printers', () => {
  test('only inside the output folder of the data directory', () => {
    expect(check(`file://${join(dir, 'output', 'kitchen.bin')}`)).toEqual({ ok: true })
    expect(check(`file://${join(dir, 'output', 'spool', 'a.bin')}`)).toEqual({ ok: true })
    expect(check(`file://${join(dir, 'printhub.db')}`)).toEqual({
      ok: false,
      message: expect.stringContaining(
        `is outside the output folder: a file printer writes only inside ${join(dir, 'output')}`,
      ),
    })
    expect(check(`file://${join(dir, 'agent', 'agent.key')}`)).toMatchObject({ ok: false })
    expect(check('file:///etc/passwd')).toMatchObject({ ok: false })
    expect(check(`file://${join(dir, 'output')}/../printhub.db`)).toMatchObject({ ok: false })
    expect(check(`file://${join(dir, 'output')}`)).toMatchObject({ ok: false })
  })

  test('a link in the output folder never leads out: a linked folder, a linked file, a hard link', async () => {
    const output = join(dir, 'output')
    mkdirSync(output, { recursive: true })
    const secret = join(dir, 'secret.key')
    writeFileSync(secret, 'KEY')
    symlinkSync(dir, join(output, 'up'))
    expect(check(`file://${join(output, 'up', 'secret.key')}`)).toEqual({
      ok: false,
      message: expect.stringContaining('leads outside the output folder through a link'),
    })
    symlinkSync(secret, join(output, 'linked.bin'))
    expect(check(`file://${join(output, 'linked.bin')}`)).toEqual({
      ok: false,
      message: expect.stringContaining('is a link'),
    })
    linkSync(secret, join(output, 'hard.bin'))
    const opened = await openConfinedFile(join(output, 'hard.bin'), output)
    expect(opened).toEqual({ ok: false, message: expect.stringContaining('is not a plain file of the output folder') })
    expect(readFileSync(secret, 'utf8')).toBe('KEY')
  })
})

describe('network printers', () => {
  test("any printer on the LAN or this machine, but never the hub's own port here", () => {
    expect(check('tcp://192.168.1.50:9100')).toEqual({ ok: true })
    expect(check('tcp://127.0.0.1:9100')).toEqual({ ok: true })
    expect(check('tcp://203.0.113.5:8080')).toEqual({ ok: true })
    for (const host of ['127.0.0.1', 'localhost', '[::1]', '0.0.0.0', '127.1.2.3']) {
      expect(check(`tcp://${host}:8080`)).toEqual({
        ok: false,
        message: expect.stringContaining("is this hub's own port, not a printer"),
      })
    }
  })
})

describe('against a running hub', () => {
  let hub: TestHub
  let token: string
  beforeAll(async () => {
    hub = await startTestHub()
    token = adminToken(hub.hub.store)
  })
  afterAll(() => hub.stop())

  const addPrinter = (id: string, connection: string) =>
    hub.request('POST', '/admin/v1/printers', { key: token, body: { projectId: hub.projectId, id, connection } })

  test('the admin API refuses each trick with 400 naming the rule, and adds nothing', async () => {
    const port = new URL(hub.url).port
    const tricks = [
      [`file://${join(hub.dataDir, 'agent', 'agent.key')}`, 'outside the output folder'],
      ['file:///etc/passwd', 'outside the output folder'],
      ['usb:///dev/../etc/passwd', 'not a plain path under /dev'],
      ['serial:///dev/null', 'not a printer device'],
      [`tcp://127.0.0.1:${port}`, "this hub's own port"],
    ] as const
    for (const [connection, rule] of tricks) {
      const response = await addPrinter('evil', connection)
      expect(response.status).toBe(400)
      const body = (await response.json()) as { error: { code: string; message: string } }
      expect(body.error.code).toBe('invalid_request')
      expect(body.error.message).toContain(rule)
    }
    expect(hub.hub.store.printers.resolve(hub.projectId, 'evil')).toBeUndefined()
  })

  test('a file printer in the output folder prints', async () => {
    const paper = join(hub.dataDir, 'output', 'counter.bin')
    expect((await addPrinter('counter', `file://${paper}`)).status).toBe(201)
    const response = await hub.request('POST', `/v1/projects/${hub.projectId}/jobs`, {
      body: {
        printerId: 'counter',
        idempotencyKey: 'in-the-folder',
        document: { width: 80, sections: [{ type: 'text', value: '<counter>' }, { type: 'cut' }] },
      },
    })
    expect(response.status).toBe(202)
    await waitFor(() => existsSync(paper) && readFileSync(paper, 'latin1').includes('<counter>'))
  })

  test(
    'a record written before the rules is refused when used: the job fails, ' + 'the file outside is untouched',
    async () => {
      const target = join(hub.dataDir, 'agent', 'agent.key')
      const before = readFileSync(target)
      expect((await addPrinter('legacy', `file://${join(hub.dataDir, 'output', 'legacy.bin')}`)).status).toBe(201)
      setPrinterConnection(
        hub.hub.store,
        hub.hub.store.printers.resolve(hub.projectId, 'legacy')!.id,
        `file://${target}`,
      )
      const response = await hub.request('POST', `/v1/projects/${hub.projectId}/jobs`, {
        body: {
          printerId: 'legacy',
          idempotencyKey: 'legacy-record',
          document: { width: 80, sections: [{ type: 'text', value: 'APPENDED' }] },
        },
      })
      const { job } = (await response.json()) as { job: Job }
      const failed = await waitFor(async () => {
        const listed = (await (await hub.request('GET', `/v1/projects/${hub.projectId}/jobs`)).json()) as {
          jobs: Job[]
        }
        const seen = listed.jobs.find((j) => j.id === job.id)!
        return seen.state === 'FAILED' && seen
      })
      expect(failed).toMatchObject({ lastErrorCode: 'printer.invalid_connection' })
      expect(readFileSync(target)).toEqual(before)
    },
  )
})
