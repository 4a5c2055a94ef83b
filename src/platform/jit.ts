// The executable starts with JavaScriptCore's tier-up thresholds raised (scripts/build.ts,
// STARTUP_JIT_POLICY): code that runs only while the program starts (modules, migrations, route
// tables) or now and then while it idles (timers, status polls) stays in the interpreter, and no
// machine code is kept for it. With the first work (serve: the first request that is not a
// liveness check; agent: once it runs) the normal policy is back, and hot paths compile as usual.

/** Stamped into a compiled binary by `bun run build`: the policy it starts with. */
declare const PRINTHUB_STARTUP_JIT_POLICY: number | undefined
/** Run from source, the program starts with the normal policy and nothing needs setting back. */
const STARTED_WITH = typeof PRINTHUB_STARTUP_JIT_POLICY === 'number' ? PRINTHUB_STARTUP_JIT_POLICY : 1

/** The normal JIT policy from here on. */
export function normalJitPolicy(): void {
  if (STARTED_WITH !== 1) Bun.unsafe.setJITPolicy(1)
}
