// The built @printhub/client package, used as an application would: packed with `npm pack`,
// installed from the tarball into a throwaway project, imported by name (`import` and `require`),
// type-checked, run under Node.
import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { after, before, describe, test } from 'node:test'
import { ApiError, PrintHubError, TimeoutError } from '../../src/client/index.ts'
import { BUN, faultServer, json, ROOT } from './support.ts'

let app: string
/** What the tarball holds. */
let tarballFiles: string[]

before(() => {
  const build = spawnSync(BUN, ['scripts/build-client.ts'], { cwd: ROOT, encoding: 'utf8' })
  assert.equal(build.status, 0, build.stderr)
  app = mkdtempSync(join(tmpdir(), 'printhub-app-'))
  const pack = spawnSync('npm', ['pack', '--json', '--pack-destination', app], {
    cwd: join(ROOT, 'dist', 'client'),
    encoding: 'utf8',
  })
  assert.equal(pack.status, 0, pack.stderr)
  const [packed] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[]
  tarballFiles = packed!.files.map((file) => file.path).sort()
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'pos-backend', type: 'module', private: true }))
  const install = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(app, packed!.filename)], {
    cwd: app,
    encoding: 'utf8',
  })
  assert.equal(install.status, 0, install.stderr)
})
after(() => rmSync(app, { recursive: true, force: true }))

describe('the @printhub/client package', () => {
  test(
    'has its own package.json with ES module and CommonJS exports, types, ' +
      'source maps, README and MIT licence, and no dependencies',
    () => {
      const manifest = JSON.parse(readFileSync(join(ROOT, 'dist/client/package.json'), 'utf8'))
      assert.equal(manifest.name, '@printhub/client')
      assert.equal(manifest.type, 'module')
      assert.deepEqual(manifest.exports, {
        '.': {
          import: { types: './index.d.ts', default: './index.js' },
          require: { types: './index.d.cts', default: './index.cjs' },
        },
      })
      assert.equal(manifest.dependencies, undefined)
      assert.equal(manifest.license, 'MIT')
      assert.match(readFileSync(join(ROOT, 'dist/client/LICENSE'), 'utf8'), /^MIT License/)
      for (const file of ['LICENSE', 'README.md', 'index.cjs', 'index.js', 'package.json', 'index.d.ts', 'index.d.cts'])
        assert.ok(tarballFiles.includes(file), `the tarball holds ${file}`)
      const bundle = readFileSync(join(ROOT, 'dist/client/index.js'), 'utf8')
      assert.ok(bundle.includes('//# sourceMappingURL=index.js.map'), 'the bundle links its source map')
      assert.ok(!/^import\s/m.test(bundle), 'the bundle imports nothing')
      assert.match(readFileSync(join(ROOT, 'dist/client/README.md'), 'utf8'), /POS back end/)
    },
  )

  test('its declarations are one file that exports exactly what the library exports, and no internal module', () => {
    const declarations = readFileSync(join(ROOT, 'dist/client/index.d.ts'), 'utf8')
    assert.ok(!tarballFiles.some((file) => file.startsWith('types/')), 'no per-source declaration files')
    assert.ok(!/^(import|export .* from)\s/m.test(declarations), 'the declarations import nothing')
    const declared = [
      ...declarations.matchAll(/^export declare (?:abstract )?(?:class|function|const|type|interface) (\w+)/gm),
    ]
      .map((match) => match[1]!)
      .sort()
    const source = readFileSync(join(ROOT, 'src/client/index.ts'), 'utf8')
    const exported = [...source.matchAll(/^export (?:type )?\{([^}]+)\}/gm)]
      .flatMap((match) => match[1]!.split(',').map((name) => name.trim().replace(/^type /, '')))
      .filter((name) => name !== '')
      .sort()
    assert.deepEqual(declared, exported)
    // What is declared but not exported is only what the exported types are inferred from: no class,
    // no function, no connection or validator an application could reach.
    const unexported = [...declarations.matchAll(/^declare (\w+) (\w+)/gm)].map((match) => `${match[1]} ${match[2]}`)
    for (const entry of unexported) assert.match(entry, /^(const|type|interface) /, entry)
    assert.ok(!/\bConnection\b|\bvalidate\(/.test(declarations), 'no connection, no validator')
    assert.equal(readFileSync(join(ROOT, 'dist/client/index.d.cts'), 'utf8'), declarations)
  })

  test('its sources import nothing from the server side, only the shared protocol rules', () => {
    const folder = join(ROOT, 'src', 'client')
    for (const file of readdirSync(folder).filter((name) => name.endsWith('.ts'))) {
      const imports = [...readFileSync(join(folder, file), 'utf8').matchAll(/from '([^']+)'/g)].map(
        (match) => match[1]!,
      )
      for (const specifier of imports)
        assert.ok(specifier.startsWith('./') || specifier.startsWith('../protocol/'), `${file} imports ${specifier}`)
    }
  })

  test('instanceof works across two copies of the library', async () => {
    const copy = await import(pathToFileURL(join(ROOT, 'dist', 'client', 'index.js')).href)
    const fromCopy = new copy.TimeoutError(5, 'GET', '/health')
    assert.ok(fromCopy instanceof TimeoutError && fromCopy instanceof PrintHubError)
    assert.ok(!(fromCopy instanceof ApiError))
    assert.ok(new ApiError(500, 'GET', '/', undefined, undefined, undefined, 'x') instanceof copy.PrintHubError)
  })

  test('imports by name and works under Node', async () => {
    const server = await faultServer([json(200, { ok: true, service: 'printhub' })])
    writeFileSync(
      join(app, 'main.js'),
      `import { PrintHubClient, ApiError, PrintHubError } from '@printhub/client'
const client = new PrintHubClient({ baseUrl: process.env.HUB })
console.log(JSON.stringify({
  health: await client.health(),
  errorKinds: new ApiError(500, 'GET', '/', 'x', 'r', undefined, 'm') instanceof PrintHubError,
}))`,
    )
    // Not spawnSync: the fault server in this process must be free to answer.
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      execFile('node', ['main.js'], { cwd: app, env: { ...process.env, HUB: server.url } }, (error, stdout, stderr) =>
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
      ),
    )
    await server.close()
    assert.equal(run.code, 0, run.stderr)
    assert.deepEqual(JSON.parse(run.stdout), { health: { ok: true, service: 'printhub' }, errorKinds: true })
  })

  test('require() works too, for CommonJS applications, and gives the same API', async () => {
    const server = await faultServer([json(200, { ok: true, service: 'printhub' })])
    writeFileSync(
      join(app, 'main.cjs'),
      `const { PrintHubClient, ApiError, PrintHubError, JOB_STATES } = require('@printhub/client')
new PrintHubClient({ baseUrl: process.env.HUB }).health().then((health) => console.log(JSON.stringify({
  health,
  states: JOB_STATES.length,
  kinds: new ApiError(500, 'GET', '/', 'x', 'r', undefined, 'm') instanceof PrintHubError,
})))`,
    )
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      execFile('node', ['main.cjs'], { cwd: app, env: { ...process.env, HUB: server.url } }, (error, stdout, stderr) =>
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
      ),
    )
    await server.close()
    assert.equal(run.code, 0, run.stderr)
    assert.deepEqual(JSON.parse(run.stdout), { health: { ok: true, service: 'printhub' }, states: 8, kinds: true })
  })

  test("the READMEs' TypeScript examples type-check against the package", () => {
    // What the examples leave to the application around them.
    const around = `declare const process: { env: Record<string, string | undefined> }
declare const jobId: string
declare let lastSeenEventId: number
declare function relistJobs(): Promise<void>
declare function alertStaff(text: string): void
declare const app: { post(path: string, handler: (request: Request) => Promise<Response>): void }
`
    const examples = ['README.md', 'docs/api.md', 'src/client/README.md'].flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => ({
        file,
        code: match[1]!,
      })),
    )
    const used = examples.filter((example) => example.code.includes("from '@printhub/client'"))
    assert.ok(used.length >= 4, `${used.length} examples`)
    const tsc = join(ROOT, 'node_modules', '.bin', 'tsc')
    used.forEach((example, i) => {
      const name = `example-${i}.ts`
      // Imports first, then what surrounds the example, then the rest of it.
      const lines = example.code.split('\n')
      const imports = lines.filter((line) => line.startsWith('import '))
      const rest = lines.filter((line) => !line.startsWith('import ')).join('\n')
      writeFileSync(join(app, name), `${imports.join('\n')}\n${around}${rest}\nexport {}\n`)
      const checked = spawnSync(
        tsc,
        [
          '--ignoreConfig',
          '--noEmit',
          '--strict',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--target',
          'ES2022',
          '--lib',
          'ES2022,DOM',
          '--types',
          '',
          name,
        ],
        { cwd: app, encoding: 'utf8' },
      )
      assert.equal(checked.status, 0, `${example.file}, example ${i}:\n${checked.stdout}`)
    })
  })

  test('its declarations type-check an application, and catch a wrong document', () => {
    writeFileSync(
      join(app, 'app.ts'),
      `import { PrintHubClient, type CreateJobInput, type Job } from '@printhub/client'
const client = new PrintHubClient({ baseUrl: 'http://hub:8080', apiKey: process.env.KEY, projectId: 'prj_1' })
const input: CreateJobInput = {
  printerId: 'kitchen',
  idempotencyKey: 'o-1',
  document: { width: 80, sections: [{ type: 'text', value: 'x', align: 'center' }, { type: 'cut' }] },
}
export async function run(): Promise<Job['state']> { return (await client.jobs.create(input)).job.state }
declare const process: { env: Record<string, string | undefined> }
`,
    )
    writeFileSync(
      join(app, 'bad.ts'),
      `import type { CreateJobInput } from '@printhub/client'\nexport const ` +
        `bad: CreateJobInput = { printerId: 'k', idempotencyKey: 'o', document: { ` +
        `width: 72, sections: [{ type: 'poem' }] } }\n`,
    )
    const tsc = join(ROOT, 'node_modules', '.bin', 'tsc')
    const flags = [
      '--ignoreConfig',
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'ES2022',
      '--lib',
      'ES2022,DOM',
      '--types',
      '',
    ]
    const good = spawnSync(tsc, [...flags, 'app.ts'], { cwd: app, encoding: 'utf8' })
    assert.equal(good.status, 0, good.stdout)
    const bad = spawnSync(tsc, [...flags, 'bad.ts'], { cwd: app, encoding: 'utf8' })
    assert.notEqual(bad.status, 0)
    assert.match(bad.stdout, /bad\.ts/)
    // A CommonJS application written in TypeScript gets the .d.cts through `require`.
    writeFileSync(
      join(app, 'legacy.cts'),
      `import hub = require('@printhub/client')
export const client = new hub.PrintHubClient({ baseUrl: 'http://hub:8080' })
export const state: hub.JobState = 'PENDING'
export const isError = (error: unknown): boolean => error instanceof hub.ApiError
`,
    )
    const legacy = spawnSync(tsc, [...flags, 'legacy.cts'], { cwd: app, encoding: 'utf8' })
    assert.equal(legacy.status, 0, legacy.stdout)
    // Only the public API is reachable: the route groups cannot be built apart from a client.
    writeFileSync(
      join(app, 'internal.ts'),
      `import { JobsApi } from '@printhub/client'\nexport const jobs = new JobsApi()\n`,
    )
    const internal = spawnSync(tsc, [...flags, 'internal.ts'], { cwd: app, encoding: 'utf8' })
    assert.notEqual(internal.status, 0)
    assert.match(internal.stdout, /JobsApi/)
  })
})
