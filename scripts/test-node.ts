// Runs the client test suite under Node as well: the client promises Node 18+, Bun and Deno.
// Each test file is bundled for Node (the client from source, as in the Bun run), then run with
// `node --test`, which also writes a JUnit report beside Bun's. The Node.js that runs them is the
// one pinned for it (scripts/node-binary.ts, fetched once when missing), never this machine's:
// `--test-timeout` and the JUnit reporter need Node 20.11, and Debian 12's Node.js is 18.
// `bun scripts/test-node.ts [--out DIR] [NAME.test.ts...]`: the report and the bundles in DIR
// (.ci/out by default); every test file of test/client, or the ones named.
import { readdirSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { fetchNode, TEST_NODE, TEST_NODE_VERSION } from './node-binary.ts'

const ROOT = join(import.meta.dir, '..')
const SOURCES = join(ROOT, 'test', 'client')
const args = parseArgs({ options: { out: { type: 'string' } }, allowPositionals: true })
const DIR = resolve(args.values.out ?? join(ROOT, '.ci', 'out'))
const OUT = join(DIR, 'node-tests')
const NODE_JUNIT = join(DIR, 'node-junit.xml')

const failed = fetchNode(TEST_NODE_VERSION)
if (failed) {
  console.error(`test-node: fetching Node.js ${TEST_NODE_VERSION} to run the client's tests: ${failed}`)
  process.exit(1)
}

rmSync(OUT, { recursive: true, force: true })
const names =
  args.positionals.length > 0 ? args.positionals : readdirSync(SOURCES).filter((name) => name.endsWith('.test.ts'))
const entrypoints = names.map((name) => join(SOURCES, name))
const build = await Bun.build({
  entrypoints,
  outdir: OUT,
  target: 'node',
  format: 'esm',
  naming: '[name].mjs',
  packages: 'bundle',
})
if (!build.success) throw new AggregateError(build.logs, 'bundling the client tests for Node failed')

// A hung test fails on its own timeout (what a test leaves open is unref'd, see support.ts).
const node = Bun.spawn(
  [
    TEST_NODE,
    '--test',
    '--test-timeout=30000',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=junit',
    `--test-reporter-destination=${NODE_JUNIT}`,
    ...build.outputs.map((o) => o.path),
  ],
  {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  },
)
process.exit(await node.exited)
