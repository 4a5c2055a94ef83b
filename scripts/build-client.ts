// Builds the publishable @printhub/client package into dist/client/: an ES module bundle and a
// CommonJS one (for `require`), each with its source map, one file of type declarations, package.json, README
// and LICENSE (MIT, the project's). `npm run build:client`.
import { $ } from 'bun'
import { Extractor, ExtractorConfig, type ExtractorLogLevel } from '@microsoft/api-extractor'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..')
const OUT = join(ROOT, 'dist', 'client')
const version: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version

rmSync(OUT, { recursive: true, force: true })

// The browser target keeps the bundle free of Node-only APIs: it runs on Node 18+, Bun and Deno.
// The one exception, node:crypto, is imported only where the global WebCrypto is missing (Node 18),
// by a specifier the bundler does not follow (src/protocol/webhook-signature.ts).
for (const [format, naming] of [
  ['esm', 'index.js'],
  ['cjs', 'index.cjs'],
] as const) {
  const build = await Bun.build({
    entrypoints: [join(ROOT, 'src/client/index.ts')],
    outdir: OUT,
    target: 'browser',
    format,
    sourcemap: 'linked',
    naming,
  })
  if (!build.success) throw new AggregateError(build.logs, `building the client (${format}) failed`)
}

// Declarations keep the sources' `.ts` specifiers; a consumer's TypeScript finds `x.d.ts` for `x.js`.
function rewriteSpecifiers(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) rewriteSpecifiers(path)
    else if (entry.name.endsWith('.d.ts'))
      writeFileSync(path, readFileSync(path, 'utf8').replace(/(from\s+'\.{1,2}\/[^']+)\.ts'/g, "$1.js'"))
  }
}
// Declarations: tsc emits one file per source into a scratch folder, then API Extractor rolls them
// up into one index.d.ts holding only what index.ts exports and the types those exports name: the
// validation rules, limits and helpers the client shares with the hub stay out of the package.
const scratch = mkdtempSync(join(tmpdir(), 'printhub-client-types-'))
try {
  const tsc = join(ROOT, 'node_modules/.bin/tsc')
  await $`${tsc} --ignoreConfig src/client/index.ts --declaration --emitDeclarationOnly --stripInternal \
    --outDir ${scratch} --rootDir src --target ES2022 --module preserve --moduleResolution bundler \
    --allowImportingTsExtensions --strict --skipLibCheck --lib ES2022,DOM --types ''`.cwd(ROOT)
  rewriteSpecifiers(scratch)
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: scratch,
      mainEntryPointFilePath: join(scratch, 'client', 'index.d.ts'),
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            module: 'preserve',
            moduleResolution: 'bundler',
            lib: ['ES2022', 'DOM'],
            types: [],
            strict: true,
            skipLibCheck: true,
          },
        },
      },
      dtsRollup: { enabled: true, untrimmedFilePath: join(OUT, 'index.d.ts') },
      apiReport: { enabled: false },
      docModel: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        extractorMessageReporting: { default: { logLevel: 'none' as ExtractorLogLevel } },
        tsdocMessageReporting: { default: { logLevel: 'none' as ExtractorLogLevel } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(ROOT, 'package.json'),
  })
  const result = Extractor.invoke(config, { localBuild: true, showVerboseMessages: false })
  if (!result.succeeded) throw new Error(`rolling up the client's declarations failed: ${result.errorCount} errors`)
  // The same declarations for `require`: TypeScript reads a .d.cts as CommonJS, as index.cjs is.
  writeFileSync(join(OUT, 'index.d.cts'), readFileSync(join(OUT, 'index.d.ts')))
} finally {
  rmSync(scratch, { recursive: true, force: true })
}

const packageJson = {
  name: '@printhub/client',
  version,
  description: 'Typed, dependency-free client for the printhub print job service.',
  type: 'module',
  exports: {
    '.': {
      import: { types: './index.d.ts', default: './index.js' },
      require: { types: './index.d.cts', default: './index.cjs' },
    },
  },
  main: './index.cjs',
  module: './index.js',
  types: './index.d.ts',
  files: [
    'index.js',
    'index.js.map',
    'index.cjs',
    'index.cjs.map',
    'index.d.ts',
    'index.d.cts',
    'README.md',
    'LICENSE',
  ],
  sideEffects: false,
  engines: { node: '>=18' },
  license: 'MIT',
}
writeFileSync(join(OUT, 'package.json'), `${JSON.stringify(packageJson, null, 2)}\n`)
writeFileSync(join(OUT, 'README.md'), readFileSync(join(ROOT, 'src/client/README.md'), 'utf8'))
writeFileSync(join(OUT, 'LICENSE'), readFileSync(join(ROOT, 'LICENSE'), 'utf8'))

const size = (file: string) => Bun.file(join(OUT, file)).size
console.log(`built @printhub/client ${version} in ${OUT}: index.js ${size('index.js')} bytes`)
