// The printhub executable: `bun src/main.ts ARGS` from a checkout, `printhub ARGS` when compiled.
import { main } from './cli/main.ts'

const code = await main(process.argv.slice(2), {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  env: process.env,
})
process.exit(code)
