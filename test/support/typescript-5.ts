// Preloaded (`bun --preload`) into the process that runs openapi-typescript: it writes its output
// with TypeScript 5's compiler API (ts.factory, the printer), which TypeScript 7, the project's
// compiler, no longer has as a JavaScript API (its package's main module says only its version).
// Where openapi-typescript imports "typescript", it gets TypeScript 5 instead, the `typescript-5`
// dev dependency (package.json's override lets npm take TypeScript 7 as its peer). Only that
// process: the tests' own processes never load it.
import { plugin } from 'bun'
import { createRequire } from 'node:module'

const typescript5 = createRequire(import.meta.url)('typescript-5') as Record<string, unknown>

plugin({
  name: 'TypeScript 5 for openapi-typescript',
  setup(build) {
    build.onLoad({ filter: /\/node_modules\/typescript\/lib\/version\.cjs$/ }, () => ({ exports: { default: typescript5, ...typescript5 }, loader: 'object' }))
  },
})
