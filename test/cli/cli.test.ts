// The CLI, run as its own process against a data directory, as technicians and scripts use it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { MIGRATIONS } from '../../src/store/migrations.ts'
import { SERVICE_JIT_ENVIRONMENT } from '../../src/platform/jit.ts'
import { cli, cliJson } from '../support/cli.ts'
import { tempDir } from '../support/hub.ts'
import { COMMAND_LOADERS, COMMAND_NAMES, loadCommands } from '../../src/cli/main.ts'
import { Store } from '../../src/store/store.ts'

let dataDir: string
let env: Record<string, string>
let init: {
  created: true
  projectId: string
  apiKey: string
  keyId: string
  keyPrefix: string
  serverId: string
  printerId: string
}

beforeAll(async () => {
  dataDir = tempDir()
  env = { PRINTHUB_DATA_DIR: dataDir }
  init = await cliJson(['init'], env)
})
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

describe('printhub init', () => {
  test('creates a project, an API key with every scope, a demo printer and the server ID', async () => {
    expect(init).toMatchObject({ created: true, printerId: 'demo' })
    expect(init.projectId).toMatch(/^prj_/)
    expect(init.apiKey).toMatch(/^phk_[A-Za-z0-9_-]{43}$/)
    expect(init.keyPrefix).toBe(init.apiKey.slice(0, 12))
    expect(init.serverId).toMatch(/^srv_/)
    const keys = await cliJson(['keys', 'list', '--project', init.projectId], env)
    expect(keys).toEqual([
      expect.objectContaining({
        id: init.keyId,
        scopes: ['jobs:read', 'jobs:write', 'printers:read', 'printers:write', 'webhooks:write'],
        revokedAt: null,
      }),
    ])
    expect(JSON.stringify(keys)).not.toContain(init.apiKey)
  })

  test('again on an initialised data dir creates nothing and says so', async () => {
    expect(await cliJson(['init'], env)).toEqual({ created: false, projectId: init.projectId, serverId: init.serverId })
    const text = await cli(['init'], env)
    expect(text.code).toBe(0)
    expect(text.stdout).toContain('already initialised')
    expect(await cliJson(['projects', 'list'], env)).toHaveLength(1)
  })

  test('--data wins over PRINTHUB_DATA_DIR', async () => {
    const other = tempDir()
    try {
      const result = await cliJson(['init', '--data', other], env)
      expect(result.created).toBe(true)
      expect(result.projectId).not.toBe(init.projectId)
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  })
})

describe('projects, keys, printers, pairing codes, jobs', () => {
  test('projects create and list', async () => {
    const project = await cliJson(['projects', 'create', 'Online orders'], env)
    expect(project).toMatchObject({ name: 'Online orders', openJobs: 0 })
    const list = await cliJson(['projects', 'list'], env)
    expect(list.map((p: { id: string }) => p.id)).toEqual([init.projectId, project.id])
    const table = await cli(['projects', 'list'], env)
    expect(table.stdout).toContain('Online orders')
    expect((await cli(['projects', 'create'], env)).code).toBe(2)
  })

  test('keys create with scopes and a name, shown once; list; revoke', async () => {
    const key = await cliJson(
      ['keys', 'create', '--project', init.projectId, '--scope', 'jobs:read', '--name', 'kiosk'],
      env,
    )
    expect(key).toMatchObject({ scopes: ['jobs:read'], name: 'kiosk', projectId: init.projectId })
    expect(key.apiKey).toMatch(/^phk_/)
    const listed = await cliJson(['keys', 'list', '--project', init.projectId], env)
    expect(listed.find((k: { id: string }) => k.id === key.id)).toEqual({
      id: key.id,
      projectId: init.projectId,
      name: 'kiosk',
      keyPrefix: key.apiKey.slice(0, 12),
      scopes: ['jobs:read'],
      createdAt: key.createdAt,
      lastUsedAt: null,
      revokedAt: null,
    })
    expect(await cliJson(['keys', 'revoke', key.id], env)).toEqual({ id: key.id, revoked: true })
    const after = await cliJson(['keys', 'list', '--project', init.projectId], env)
    expect(after.find((k: { id: string }) => k.id === key.id).revokedAt).toMatch(/Z$/)
  })

  test('keys create refuses unknown scopes and projects', async () => {
    const badScope = await cli(['keys', 'create', '--project', init.projectId, '--scope', 'jobs:delete'], env)
    expect(badScope.code).toBe(2)
    expect(badScope.stderr).toContain('unknown scope "jobs:delete"')
    const badProject = await cli(['keys', 'create', '--project', 'prj_nope'], env)
    expect(badProject.code).toBe(1)
    expect(badProject.stderr).toContain('there is no project prj_nope')
    expect((await cli(['keys', 'revoke', 'apk_nope'], env)).code).toBe(1)
  })

  test('pairing-codes create', async () => {
    const code = await cliJson(['pairing-codes', 'create'], env)
    expect(Object.keys(code).sort()).toEqual(['code', 'expiresAt'])
    expect(code.code).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/)
    expect(Date.parse(code.expiresAt) - Date.now()).toBeGreaterThan(290_000)
    expect(Date.parse(code.expiresAt) - Date.now()).toBeLessThanOrEqual(300_000)
    const long = await cliJson(['pairing-codes', 'create', '--ttl', '2h'], env)
    expect(Date.parse(long.expiresAt) - Date.now()).toBeGreaterThan(7_190_000)
    for (const ttl of ['5s', '25h', 'soon', '5']) {
      const result = await cli(['pairing-codes', 'create', '--ttl', ttl], env)
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('--ttl must be a duration from 10s to 24h')
    }
  })

  test('printers add, list and remove, with the connection URI checked', async () => {
    const printer = await cliJson(
      [
        'printers',
        'add',
        '--project',
        init.projectId,
        '--id',
        'kitchen',
        '--connection',
        'tcp://192.168.1.50:9100',
        '--profile',
        'generic-58mm',
        '--name',
        'Kitchen',
      ],
      env,
    )
    expect(printer).toMatchObject({
      remoteId: 'kitchen',
      connection: 'tcp://192.168.1.50:9100',
      profile: 'generic-58mm',
      width: 58,
      name: 'Kitchen',
    })
    const list = await cliJson(['printers', 'list', '--project', init.projectId], env)
    expect(list.map((p: { remoteId: string }) => p.remoteId)).toEqual(['demo', 'kitchen'])
    const duplicate = await cli(
      ['printers', 'add', '--project', init.projectId, '--id', 'kitchen', '--connection', 'virtual'],
      env,
    )
    expect(duplicate.code).toBe(1)
    expect(duplicate.stderr).toContain('already has a printer "kitchen"')
    expect(await cliJson(['printers', 'remove', printer.id], env)).toEqual({ id: printer.id, removed: true })
    expect(
      (await cliJson(['printers', 'list', '--project', init.projectId], env)).map(
        (p: { remoteId: string }) => p.remoteId,
      ),
    ).toEqual(['demo'])
    expect((await cli(['printers', 'remove', printer.id], env)).code).toBe(1)
    // Without a profile, the width picks the generic profile of that width.
    const narrow = await cliJson(
      [
        'printers',
        'add',
        '--project',
        init.projectId,
        '--id',
        'till.2',
        '--connection',
        'usb:///dev/usb/lp0',
        '--width',
        '58',
      ],
      env,
    )
    expect(narrow).toMatchObject({ profile: 'generic-58mm', width: 58 })
    await cliJson(['printers', 'remove', narrow.id], env)
  })

  test('printers add explains a bad connection, profile or width', async () => {
    const badId = await cli(
      ['printers', 'add', '--project', init.projectId, '--id', 'front bar', '--connection', 'virtual'],
      env,
    )
    expect(badId.code).toBe(2)
    expect(badId.stderr).toContain('--id must be an identifier')
    const base = ['printers', 'add', '--project', init.projectId, '--id', 'bar']
    const cases: [string[], string][] = [
      [['--connection', 'http://printer'], 'unknown connection kind "http"'],
      [['--connection', 'tcp://host:70000'], 'tcp://HOST:PORT'],
      [['--connection', 'serial:///dev/ttyUSB0?baud=1234'], 'baud must be one of'],
      [['--connection', 'usb://04b8'], 'usb://VID:PID'],
      [['--connection', 'virtual', '--profile', 'laser'], '--profile must be one of'],
      [['--connection', 'virtual', '--width', '72'], '--width must be one of 58, 80'],
      [
        ['--connection', 'virtual', '--profile', 'generic-80mm', '--width', '58'],
        '--width must be one of 80 for profile generic-80mm',
      ],
      [[], '--connection is required'],
    ]
    for (const [extra, message] of cases) {
      const result = await cli([...base, ...extra], env)
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(message)
    }
  })

  test(
    'printers adopt: a printer that polls the hub, by its MAC address as its ' +
      'label writes it (CloudPRNT) or its Epson ID; once; with a model of ' +
      'its commands',
    async () => {
      const adopted = await cliJson(
        ['printers', 'adopt', '00-11-62-0A-0B-0C', '--project', init.projectId, '--id', 'bar'],
        env,
      )
      expect(adopted).toMatchObject({
        remoteId: 'bar',
        connection: 'cloudprnt://00:11:62:0a:0b:0c',
        profile: 'star-tsp143iv',
        width: 80,
      })
      const human = await cli(
        ['printers', 'adopt', '00:11:62:0a:0b:0d', '--project', init.projectId, '--id', 'patio'],
        env,
      )
      expect(human.stdout).toContain('Adopted 00:11:62:0a:0b:0d as printer')
      const again = await cli(['printers', 'adopt', '001162:0a0b0c', '--project', init.projectId, '--id', 'bar2'], env)
      expect({ code: again.code, stderr: again.stderr }).toEqual({
        code: 1,
        stderr: expect.stringContaining(`adopted already, as ${adopted.id} ("bar")`),
      })
      const cases: [string[], number, string][] = [
        [['00:11:62:zz:0b:0c', '--project', init.projectId, '--id', 'x'], 2, 'is not a MAC address'],
        [
          ['00:11:62:0a:0b:0e', '--project', init.projectId, '--id', 'x', '--profile', 'epson-tm-m30iii'],
          2,
          '--profile must be a StarPRNT model for a CloudPRNT printer: star-tsp143iv',
        ],
        [['00:11:62:0a:0b:0e', '--project', 'prj_nope', '--id', 'x'], 1, 'there is no project prj_nope'],
        [['00:11:62:0a:0b:0e', '--project', init.projectId, '--id', 'bar'], 1, 'already has a printer "bar"'],
        [['00:11:62:0a:0b:0e', '--project', init.projectId], 2, '--id is required'],
        [['--project', init.projectId, '--id', 'x'], 2, 'MAC'],
      ]
      for (const [extra, code, message] of cases) {
        const result = await cli(['printers', 'adopt', ...extra], env)
        expect({ extra, code: result.code, message: result.stderr.includes(message) }).toEqual({
          extra,
          code,
          message: true,
        })
      }
      // Anything but a MAC address is an Epson Server Direct Print printer's ID (or Name), with an ESC/POS model.
      const epson = await cliJson(
        ['printers', 'adopt', 'X6WY351989', '--project', init.projectId, '--id', 'counter'],
        env,
      )
      expect(epson).toMatchObject({
        remoteId: 'counter',
        connection: 'epson-sdp://X6WY351989',
        profile: 'epson-tm-m30iii',
        width: 80,
      })
      const star = await cli(
        ['printers', 'adopt', 'X6WY351990', '--project', init.projectId, '--id', 'x', '--profile', 'star-tsp143iv'],
        env,
      )
      expect({
        code: star.code,
        said: star.stderr.includes('--profile must be an ESC/POS model for an Epson Server Direct Print printer'),
      }).toEqual({ code: 2, said: true })
      const odd = await cli(['printers', 'adopt', 'not an id', '--project', init.projectId, '--id', 'x'], env)
      expect({ code: odd.code, said: odd.stderr.includes('nor an Epson Server Direct Print ID') }).toEqual({
        code: 2,
        said: true,
      })
      for (const id of [
        adopted.id,
        epson.id,
        (await cliJson(['printers', 'list', '--project', init.projectId], env)).find(
          (p: { remoteId: string }) => p.remoteId === 'patio',
        ).id,
      ])
        await cliJson(['printers', 'remove', id], env)
    },
  )

  test('jobs list and show', async () => {
    expect(await cliJson(['jobs', 'list', '--project', init.projectId], env)).toEqual([])
    expect((await cli(['jobs', 'list', '--project', init.projectId], env)).stdout.trim()).toBe('No jobs.')
    const bad = await cli(['jobs', 'list', '--project', init.projectId, '--state', 'DONE'], env)
    expect(bad.code).toBe(2)
    const missing = await cli(['jobs', 'show', 'job_nope'], env)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('there is no job job_nope')
  })

  test('jobs cancel: a PENDING job at once; a finished or unknown one is refused', async () => {
    const store = Store.open({ dataDir: env.PRINTHUB_DATA_DIR!, create: false, maxOpenJobsPerProject: 10 })
    const outcome = await store.jobs.submit({
      projectId: init.projectId,
      printerId: 'demo',
      idempotencyKey: 'cancel-me',
      document: { width: 80, sections: [{ type: 'text', value: 'never printed' }] },
      metadata: null,
      expiresInMs: 60_000,
      maxAttempts: 5,
    })
    store.close()
    const id = (outcome as { job: { id: string } }).job.id
    expect(await cliJson(['jobs', 'cancel', id], env)).toMatchObject({
      id,
      state: 'CANCELLED',
      cancellation: 'cancelled',
    })
    const again = await cli(['jobs', 'cancel', id], env)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('is already CANCELLED')
    const unknown = await cli(['jobs', 'cancel', 'job_nope'], env)
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('there is no job job_nope')
    expect((await cli(['jobs', 'cancel'], env)).code).toBe(2)
  })

  test('profiles list and show', async () => {
    const profiles = await cliJson(['profiles', 'list'], env)
    expect(profiles.map((p: { id: string }) => p.id)).toEqual([
      'generic-80mm',
      'generic-58mm',
      'bixolon-srp-350plusiii',
      'epson-tm-m30iii',
      'epson-tm-t20iii',
      'epson-tm-t88vi',
      'star-tsp143iv',
      'sunmi-v2',
      'xprinter-xp-58',
      'xprinter-xp-80c',
    ])
    const table = await cli(['profiles', 'list'], env)
    expect(table.stdout).toContain(
      'star-tsp143iv           Star TSP143IV (StarPRNT)         starprnt  58 ' +
        'mm: 384 dots, 32 columns; 80 mm: 576 dots, 48 columns',
    )
    const star = await cli(['profiles', 'show', 'star-tsp143iv'], env)
    expect(star.code).toBe(0)
    expect(star.stdout).toContain('Commands        StarPRNT')
    expect(star.stdout).toContain('Code pages      cp858 (4), cp852 (5), cp866 (10), cp737 (15), cp857 (12)')
    expect(await cliJson(['profiles', 'show', 'epson-tm-t88vi'], env)).toMatchObject({
      id: 'epson-tm-t88vi',
      widths: { 80: { dotsPerLine: 512, columns: 42 } },
    })
    const unknown = await cli(['profiles', 'show', 'nope'], env)
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('there is no profile nope (see printhub profiles list)')
  })
})

describe('the CLI itself', () => {
  // One process per command (dozens): four at a time, with time for a busy machine.
  test('every command has --help', async () => {
    // One process per command, a few at a time: the list grows with every command.
    const commands = await loadCommands()
    for (let at = 0; at < commands.length; at += 4) {
      await Promise.all(
        commands.slice(at, at + 4).map(async (command) => {
          const result = await cli([...command.name.split(' '), '--help'])
          expect(result.code).toBe(0)
          expect(result.stdout).toStartWith(`Usage: printhub ${command.name}`)
        }),
      )
    }
  }, 30_000)

  test('each command loads under the name it is found by, and every command is in the overview', async () => {
    for (const name of COMMAND_NAMES) expect((await COMMAND_LOADERS[name]!()).name).toBe(name)
    const help = await cli(['--help'])
    for (const name of COMMAND_NAMES) expect(help.stdout).toContain(`  ${name} `)
  })

  test('version', async () => {
    const result = await cli(['version'])
    // From the sources the commit is `source`; a compiled executable names its commit.
    const commit = process.env.PRINTHUB_EXECUTABLE ? expect.stringMatching(/^[0-9a-f]{12}(-dirty)?$/) : 'source'
    expect(result.stdout.trim()).toMatch(/^printhub 0\.1\.0 \((source|[0-9a-f]{12}(-dirty)?)\)$/)
    // The newest store schema it knows, so that an upgrade can say which schema goes to which; the
    // runtime options its service starts with, which an upgrade writes into the unit.
    expect(await cliJson(['version'])).toEqual({
      version: '0.1.0',
      commit,
      schema: MIGRATIONS.at(-1)!.version,
      runtimeOptions: { ...SERVICE_JIT_ENVIRONMENT },
    })
  })

  test('unknown commands and options are usage errors (exit 2)', async () => {
    expect((await cli(['frobnicate'])).code).toBe(2)
    const group = await cli(['keys'])
    expect(group.code).toBe(2)
    expect(group.stderr).toContain('keys create, keys list, keys revoke')
    const option = await cli(['projects', 'list', '--colour'], env)
    expect(option.code).toBe(2)
    expect(option.stderr).toContain("Unknown option '--colour'")
    const none = await cli([])
    expect(none.code).toBe(2)
    expect(none.stdout).toContain('Commands:')
  })

  test('commands that read the data dir refuse a missing one instead of creating it', async () => {
    const result = await cli(['jobs', 'list', '--project', 'prj_x', '--data', '/tmp/printhub-no-such-dir'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('There is no printhub data in /tmp/printhub-no-such-dir')
  })

  test('bad configuration names the setting', async () => {
    const result = await cli(['serve', '--port', '99999', '--data', dataDir])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('--port must be an integer from 0 to 65535')
    const env2 = await cli(['serve', '--data', dataDir], { PRINTHUB_CHALLENGE_TTL_SECONDS: '3' })
    expect(env2.stderr).toContain('PRINTHUB_CHALLENGE_TTL_SECONDS must be an integer from 5 to 300')
    const name = await cli(['serve', '--data', dataDir], { PRINTHUB_SERVER_NAME: ' padded' })
    expect(name.stderr).toContain('PRINTHUB_SERVER_NAME must be a name without control or direction characters')
  })
})
