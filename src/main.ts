// The printhub executable: `bun src/main.ts ARGS` from a checkout, `printhub ARGS` when compiled.
import { main } from './cli/main.ts'
import { printable } from './domain/printable.ts'

// Lines for stdout are gathered and written once per turn of the event loop: a busy hub logs
// every request, and a write for each line costs it a noticeable share of its time.
const pending: string[] = []
function flush(): void {
  if (pending.length === 0) return
  console.log(pending.join('\n'))
  pending.length = 0
}

// A process that ends (an uncaught error included) writes what it still holds; only kill -9 can
// lose the lines of its last turn.
process.on('exit', flush)

void main(process.argv.slice(2), {
  // Everything shown passes here: text from the network never drives the terminal.
  out: (line) => {
    if (pending.push(printable(line)) === 1) setImmediate(flush)
  },
  err: (line) => {
    // After what stdout still holds, in the order it happened.
    flush()
    console.error(printable(line))
  },
  env: process.env,
}).then(
  (code) => {
    flush()
    process.exit(code)
  },
  (error: unknown) => {
    flush()
    throw error
  },
)
