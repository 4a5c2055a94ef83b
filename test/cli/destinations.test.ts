// `printhub destinations …` on a data directory, as a technician runs it: made with its printers
// in order, listed, changed, deleted; a printer the project lacks, a name a printer has, or no
// printers at all are refused with a clear message and change nothing; a printer cannot take a
// destination's name either.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { cli, cliJson } from '../support/cli.ts'
import { tempDir } from '../support/hub.ts'

let data: string
let projectId: string
const env = () => ({ PRINTHUB_DATA_DIR: data })

beforeAll(async () => {
  data = tempDir()
  projectId = (await cliJson(['init', '--json'], env())).projectId
  for (const id of ['kitchen', 'bar'])
    await cliJson(
      ['printers', 'add', '--project', projectId, '--id', id, '--connection', `virtual://${id}`, '--json'],
      env(),
    )
})
afterAll(() => rmSync(data, { recursive: true, force: true }))

describe('printhub destinations', () => {
  test('create, list, set, delete', async () => {
    const made = await cliJson(
      ['destinations', 'create', 'pass', '--project', projectId, '--printer', 'kitchen', '--printer', 'bar', '--json'],
      env(),
    )
    expect(made).toMatchObject({
      name: 'pass',
      mode: 'failover',
      printers: [expect.stringMatching(/^prn_/), expect.stringMatching(/^prn_/)],
    })
    expect(
      (await cliJson(['destinations', 'list', '--project', projectId, '--json'], env())).map(
        (d: { name: string }) => d.name,
      ),
    ).toEqual(['pass'])
    const changed = await cliJson(
      ['destinations', 'set', 'pass', '--project', projectId, '--printer', 'bar', '--json'],
      env(),
    )
    expect(changed.printers).toEqual([made.printers[1]])
    const human = await cli(['destinations', 'list', '--project', projectId], env())
    expect(human.stdout).toContain('pass')
    expect((await cli(['destinations', 'delete', 'pass', '--project', projectId], env())).stdout).toContain(
      'Deleted destination pass.',
    )
    expect(await cliJson(['destinations', 'list', '--project', projectId, '--json'], env())).toEqual([])
  })

  test('refused, saying why, and nothing changes', async () => {
    const missing = await cli(['destinations', 'create', 'x', '--project', projectId, '--printer', 'nope'], env())
    expect(missing.code).not.toBe(0)
    expect(missing.stderr).toContain('printers[0]: is no printer of this project ("nope")')
    const taken = await cli(['destinations', 'create', 'kitchen', '--project', projectId, '--printer', 'bar'], env())
    expect(taken.code).not.toBe(0)
    expect(taken.stderr).toContain('already has a printer or destination named kitchen')
    const none = await cli(['destinations', 'create', 'y', '--project', projectId], env())
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('--printer')
    const unknownMode = await cli(
      ['destinations', 'create', 'z', '--project', projectId, '--printer', 'bar', '--mode', 'round-robin'],
      env(),
    )
    expect(unknownMode.code).not.toBe(0)
    expect(unknownMode.stderr).toContain('mode: must be one of "failover", "all"')
    expect(
      await cliJson(
        ['destinations', 'create', 'z', '--project', projectId, '--printer', 'bar', '--mode', 'all', '--json'],
        env(),
      ),
    ).toMatchObject({ name: 'z', mode: 'all' })
    expect((await cli(['destinations', 'delete', 'z', '--project', projectId], env())).code).toBe(0)
    expect((await cli(['destinations', 'delete', 'nope', '--project', projectId], env())).code).not.toBe(0)
    expect(await cliJson(['destinations', 'list', '--project', projectId, '--json'], env())).toEqual([])
    // One namespace: a printer cannot take a destination's name.
    await cliJson(['destinations', 'create', 'front', '--project', projectId, '--printer', 'bar', '--json'], env())
    const clash = await cli(
      ['printers', 'add', '--project', projectId, '--id', 'front', '--connection', 'virtual://front'],
      env(),
    )
    expect(clash.code).not.toBe(0)
  })
})
