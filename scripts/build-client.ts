// Builds the publishable @printhub/client package into dist/client/: an ES module bundle and a
// CommonJS one (for `require`), each with its source map, type declarations, package.json, README
// and LICENSE (MIT, the project's). `npm run build:client`.
import { $ } from 'bun'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..')
const OUT = join(ROOT, 'dist', 'client')
const version: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version

rmSync(OUT, { recursive: true, force: true })

// The browser target keeps the bundle free of Node-only APIs: it runs on Node 18+, Bun and Deno.
for (const [format, naming] of [['esm', 'index.js'], ['cjs', 'index.cjs']] as const) {
  const build = await Bun.build({ entrypoints: [join(ROOT, 'src/client/index.ts')], outdir: OUT, target: 'browser', format, sourcemap: 'linked', naming })
  if (!build.success) throw new AggregateError(build.logs, `building the client (${format}) failed`)
}

const tsc = join(ROOT, 'node_modules/.bin/tsc')
await $`${tsc} --ignoreConfig src/client/index.ts --declaration --emitDeclarationOnly --outDir ${join(OUT, 'types')} --rootDir src --target ES2022 --module preserve --moduleResolution bundler --allowImportingTsExtensions --strict --skipLibCheck --lib ES2022,DOM --types ''`.cwd(ROOT)

// Declarations keep the sources' `.ts` specifiers; a consumer's TypeScript finds `x.d.ts` for `x.js`.
function rewriteSpecifiers(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) rewriteSpecifiers(path)
    else if (entry.name.endsWith('.d.ts')) writeFileSync(path, readFileSync(path, 'utf8').replace(/(from\s+'\.{1,2}\/[^']+)\.ts'/g, "$1.js'"))
  }
}
rewriteSpecifiers(join(OUT, 'types'))

const packageJson = {
  name: '@printhub/client',
  version,
  description: 'Typed, dependency-free client for the printhub print job service.',
  type: 'module',
  exports: { '.': { types: './types/client/index.d.ts', import: './index.js', require: './index.cjs' } },
  main: './index.cjs',
  module: './index.js',
  types: './types/client/index.d.ts',
  files: ['index.js', 'index.js.map', 'index.cjs', 'index.cjs.map', 'types', 'README.md', 'LICENSE'],
  sideEffects: false,
  engines: { node: '>=18' },
  license: 'MIT',
}
writeFileSync(join(OUT, 'package.json'), `${JSON.stringify(packageJson, null, 2)}\n`)
writeFileSync(join(OUT, 'README.md'), readFileSync(join(ROOT, 'src/client/README.md'), 'utf8'))
writeFileSync(join(OUT, 'LICENSE'), readFileSync(join(ROOT, 'LICENSE'), 'utf8'))

const size = (file: string) => Bun.file(join(OUT, file)).size
console.log(`built @printhub/client ${version} in ${OUT}: index.js ${size('index.js')} bytes`)
