// Where the hub's event loop goes, method by method: preloaded into the hub by the bench
// (PRINTHUB_BENCH_HUB_FLAGS="--preload ./scripts/method-times.ts" bun run bench --quick delivery),
// it wraps every method of every class the hub's parts export and adds up the time each spends
// running, less the time of the wrapped methods it calls (self time). For an async method, only
// the part before its first await counts; work in closures counts to the method that runs them.
// Bun's sampling profiler (--cpu-prof) charges the time the loop sits idle to whatever frame ran
// last; this charges only running code. At exit it appends the 50 largest, with their calls, to
// METHOD_TIMES_FILE (default /tmp/printhub-method-times.txt), one block per process.
import { appendFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..')
/** The parts of the hub whose classes are timed (the workers' and the browser's modules are left alone). */
const PARTS = [
  'agent',
  'api',
  'admin',
  'dispatcher',
  'gateway',
  'http',
  'hub',
  'polling',
  'render',
  'services',
  'sqlite',
  'store',
  'transports',
]
const LEFT_OUT = new Set(['render/worker.ts', 'workers/receipt-thread.ts'])
const SHOWN = 50

const times = new Map<string, { calls: number; ms: number }>()
/** The time of wrapped calls made by each running wrapped call, innermost last. */
const inner: number[] = []

function wrap(owner: string, prototype: Record<string, unknown>): void {
  for (const name of Object.getOwnPropertyNames(prototype)) {
    const descriptor = Object.getOwnPropertyDescriptor(prototype, name)!
    if (name === 'constructor' || typeof descriptor.value !== 'function') continue
    const original = descriptor.value as (...args: unknown[]) => unknown
    const figures = { calls: 0, ms: 0 }
    times.set(`${owner}.${name}`, figures)
    prototype[name] = function (this: unknown, ...args: unknown[]) {
      inner.push(0)
      const started = performance.now()
      try {
        return original.apply(this, args)
      } finally {
        const took = performance.now() - started
        figures.calls++
        figures.ms += took - inner.pop()!
        if (inner.length > 0) inner[inner.length - 1]! += took
      }
    }
  }
}

for (const part of PARTS) {
  for (const file of new Bun.Glob(`${part}/**/*.ts`).scanSync(join(ROOT, 'src'))) {
    if (LEFT_OUT.has(file)) continue
    const module = (await import(join(ROOT, 'src', file))) as Record<string, unknown>
    for (const [name, value] of Object.entries(module)) {
      if (typeof value === 'function' && /^class\b/.test(Function.prototype.toString.call(value)))
        wrap(name, value.prototype as Record<string, unknown>)
    }
  }
}

process.on('exit', () => {
  const rows = [...times]
    .filter(([, f]) => f.calls > 0)
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, SHOWN)
  const lines = rows.map(
    ([name, f]) => `${f.ms.toFixed(1).padStart(10)} ms ${String(f.calls).padStart(9)} calls  ${name}`,
  )
  appendFileSync(
    process.env.METHOD_TIMES_FILE ?? '/tmp/printhub-method-times.txt',
    `--- pid ${process.pid} (${process.argv.slice(2).join(' ')})\n${lines.join('\n')}\n`,
  )
})
