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

/**
 * JavaScriptCore options the installed service starts with (its unit's `Environment=` lines,
 * install/files.ts; the bench starts its hubs and yardsticks with them too). The runtime reads
 * them from the environment as the process starts, and from nowhere else.
 *
 * FTL, the optimising tier above DFG, only for code ten times hotter than JavaScriptCore's default
 * asks (64,000 → 640,000): the hub's per-job code (HTTP, checks, SQLite calls, frames) runs a few
 * times a job and gains little from FTL, while compiling it took a fresh hub 49-163 ms in a burst
 * of 1,000-2,000 jobs, and warm hubs used more CPU a job with it; the renderer's loops over pixels
 * and lines are still hot enough to reach it (docs/performance.md).
 */
export const SERVICE_JIT_ENVIRONMENT: Readonly<Record<string, string>> = {
  BUN_JSC_thresholdForFTLOptimizeAfterWarmUp: '640000',
}
