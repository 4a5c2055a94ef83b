// Runs the client test suite under Node as well: the client promises Node 18+, Bun and Deno.
// Each test file is bundled for Node (the client from source, as in the Bun run), then run with
// `node --test`, which also writes a JUnit report beside Bun's.
import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..')
const SOURCES = join(ROOT, 'test', 'client')
const OUT = join(ROOT, '.ci', 'out', 'node-tests')
const NODE_JUNIT = join(ROOT, '.ci', 'out', 'node-junit.xml')

rmSync(OUT, { recursive: true, force: true })
const entrypoints = readdirSync(SOURCES)
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => join(SOURCES, name))
const build = await Bun.build({ entrypoints, outdir: OUT, target: 'node', format: 'esm', naming: '[name].mjs', packages: 'bundle' })
if (!build.success) throw new AggregateError(build.logs, 'bundling the client tests for Node failed')

// A hung test fails on its own timeout (what a test leaves open is unref'd, see support.ts).
const node = Bun.spawn(['node', '--test', '--test-timeout=30000', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=junit', `--test-reporter-destination=${NODE_JUNIT}`, ...build.outputs.map((o) => o.path)], {
  cwd: ROOT,
  stdio: ['ignore', 'inherit', 'inherit'],
})
process.exit(await node.exited)
