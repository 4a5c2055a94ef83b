// The compiled x64 executable, as a technician runs it: alone in an empty directory, started from
// another one. It must carry everything (migrations, printer profiles, image decoders) and take a
// job from the API to a printer.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { binaryPath, build } from '../../scripts/build.ts'
import { jobBody } from '../support/hub.ts'
import { gradientJpeg } from '../support/images.ts'
import { type ServeProcess, spawnServe } from '../support/serve.ts'

let home: string
let binary: string
let serve: ServeProcess | undefined

beforeAll(async () => {
  await build(['x64'])
  home = mkdtempSync(join(tmpdir(), 'printhub-binary-'))
  binary = join(home, 'printhub')
  copyFileSync(binaryPath('x64'), binary)
})

afterAll(async () => {
  if (serve) await serve.stop()
  rmSync(home, { recursive: true, force: true })
})

function run(args: string[], stdin?: string): { code: number; stdout: string; stderr: string } {
  const result = Bun.spawnSync([binary, ...args], {
    cwd: tmpdir(),
    env: { PATH: '/usr/bin:/bin' },
    stdout: 'pipe',
    stderr: 'pipe',
    ...(stdin === undefined ? {} : { stdin: new TextEncoder().encode(stdin) }),
  })
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() }
}

describe('the compiled executable', () => {
  test('is alone in its directory and says its version and the commit it was built from', () => {
    expect(readdirSync(home)).toEqual(['printhub'])
    const version = run(['version', '--json'])
    expect(version.code).toBe(0)
    const { version: number, commit } = JSON.parse(version.stdout)
    expect(number).toBe('0.1.0')
    expect(commit).toMatch(/^[0-9a-f]{12}(-dirty)?$/)
    expect(run(['profiles', 'list']).stdout).toContain('generic-58mm')
  })

  test('reads no .env and no bunfig.toml from the directory it is started in', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'printhub-binary-cwd-'))
    try {
      // A bunfig.toml could preload code into a printhub a technician runs as root; a .env could set its environment.
      writeFileSync(join(cwd, 'bunfig.toml'), 'preload = ["./preloaded.ts"]\n')
      writeFileSync(join(cwd, 'preloaded.ts'), 'console.error("PRELOADED")\n')
      writeFileSync(join(cwd, '.env'), 'PRINTHUB_DATA_DIR=/from-dotenv\n')
      const result = Bun.spawnSync([binary, 'settings', 'show', '--json'], {
        cwd,
        env: { PATH: '/usr/bin:/bin', PRINTHUB_DATA_DIR: join(cwd, 'none') },
        stdout: 'pipe',
        stderr: 'pipe',
      })
      const output = result.stdout.toString() + result.stderr.toString()
      expect(output).not.toContain('PRELOADED')
      expect(output).not.toContain('/from-dotenv')
      // The data directory it was given, which has no database.
      expect(output).toContain(join(cwd, 'none'))
    } finally {
      rmSync(cwd, { recursive: true, force: true })
    }
  })

  test(
    'serves, takes a job with a PNG and a JPEG (decoded by the embedded ' +
      'WebAssembly) to the demo printer, and stops cleanly',
    async () => {
      const dataDir = join(home, 'data')
      serve = await spawnServe(dataDir, { json: true, executable: [binary], cwd: tmpdir() })
      const { projectId, apiKey } = serve.listening!.firstStart
      const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='
      const body = jobBody({
        document: {
          width: 80,
          sections: [
            { type: 'text', value: 'Zażółć €' },
            { type: 'image', mediaType: 'image/png', data: png },
            { type: 'image', mediaType: 'image/jpeg', data: gradientJpeg(64, 32) },
            { type: 'cut' },
          ],
        },
      })
      const response = await fetch(`${serve.url}/v1/projects/${projectId}/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect(response.status).toBe(202)
      const { job } = await response.json()
      const state = async () => {
        const list = await fetch(`${serve!.url}/v1/projects/${projectId}/jobs`, {
          headers: { authorization: `Bearer ${apiKey}` },
        })
        return ((await list.json()).jobs as { id: string; state: string }[]).find((j) => j.id === job.id)?.state
      }
      // On its way it may be in any state before COMPLETED, never in another final one.
      for (let now = await state(); now !== 'COMPLETED'; now = await state()) {
        expect(['PENDING', 'DISPATCHING', 'DELIVERED', 'PRINTING']).toContain(now!)
        await Bun.sleep(10)
      }
      expect(await serve.stop()).toBe(0)
      serve = undefined
    },
  )

  test('a running hub makes a backup with the executable itself (the dashboard download), which restores', async () => {
    const dataDir = join(home, 'data')
    expect(
      run(['users', 'add', 'tech', '--role', 'technician', '--data', dataDir, '--json'], 'a long enough password\n')
        .code,
    ).toBe(0)
    const token = JSON.parse(
      run(['admin', 'create-token', '--user', 'tech', '--name', 'backups', '--data', dataDir, '--json']).stdout,
    ).token as string
    serve = await spawnServe(dataDir, { json: true, executable: [binary], cwd: tmpdir() })
    const response = await fetch(`${serve.url}/admin/v1/backup`, { headers: { authorization: `Bearer ${token}` } })
    const bytes = new Uint8Array(await response.arrayBuffer())
    expect(response.status).toBe(200)
    const file = join(home, 'download.phbackup')
    await Bun.write(file, bytes)
    const restored = run(['restore', file, '--data', join(home, 'restored'), '--json'])
    expect(restored.stderr).toBe('')
    expect(JSON.parse(restored.stdout)).toMatchObject({ serverId: serve.listening!.serverId, counts: { jobs: 1 } })
    expect(await serve.stop()).toBe(0)
    serve = undefined
  })
})
