// Preloaded (`bun --preload`) into the process that runs openapi-typescript: it writes its output
// with TypeScript's JavaScript compiler API (ts.factory, the printer), which TypeScript 7, the
// project's compiler, no longer has (its package's main module says only its version). Where
// openapi-typescript imports "typescript", it gets the TypeScript that API Extractor (a dev
// dependency) brings for its own analysis, the last with that API. A second copy of TypeScript as
// a dependency of the project would fight TypeScript 7 over `node_modules/.bin/tsc`; package.json's
// override lets npm take TypeScript 7 as openapi-typescript's peer. Only that process: the tests'
// own processes never load this file.
import { plugin } from 'bun'
import { createRequire } from 'node:module'

const fromApiExtractor = createRequire(createRequire(import.meta.url).resolve('@microsoft/api-extractor'))
const typescript = fromApiExtractor('typescript') as Record<string, unknown>

plugin({
  name: "API Extractor's TypeScript for openapi-typescript",
  setup(build) {
    build.onLoad({ filter: /\/node_modules\/typescript\/lib\/version\.cjs$/ }, () => ({
      exports: { default: typescript, ...typescript },
      loader: 'object',
    }))
  },
})
