// The JIT options the installed service starts with (src/platform/jit.ts): the pinned runtime knows
// each and takes it. The runtime refuses to start on an option it does not know, so a runtime that
// dropped or renamed one must fail here, not on a venue's hub after an upgrade.
import { describe, expect, test } from 'bun:test'
import { RUNTIME_OPTION_NAME, RUNTIME_OPTION_VALUE } from '../../src/install/files.ts'
import { SERVICE_JIT_ENVIRONMENT } from '../../src/platform/jit.ts'

function runWith(environment: Record<string, string>): { code: number; stderr: string } {
  const result = Bun.spawnSync([process.execPath, '-e', 'process.exit(0)'], {
    env: { PATH: process.env.PATH ?? '', ...environment, BUN_JSC_dumpOptions: '1' },
    stdout: 'ignore',
    stderr: 'pipe',
  })
  return { code: result.exitCode, stderr: result.stderr.toString() }
}

describe("the service's JIT options", () => {
  test('are JavaScriptCore options the runtime takes, each with its value', () => {
    expect(Object.keys(SERVICE_JIT_ENVIRONMENT).length).toBeGreaterThan(0)
    const { code, stderr } = runWith({ ...SERVICE_JIT_ENVIRONMENT })
    expect(code).toBe(0)
    for (const [name, value] of Object.entries(SERVICE_JIT_ENVIRONMENT))
      expect(stderr).toContain(`${name.replace(/^BUN_JSC_/, '')}=${value} (default: `)
  })

  test('are ones an upgrade will write into the unit (a name and a plain value each)', () => {
    for (const [name, value] of Object.entries(SERVICE_JIT_ENVIRONMENT)) {
      expect(name).toMatch(RUNTIME_OPTION_NAME)
      expect(value).toMatch(RUNTIME_OPTION_VALUE)
    }
  })

  test(
    'an option the runtime does not know stops it from starting (why upgrade ' + 'rewrites them with the executable)',
    () => {
      const { code, stderr } = runWith({ BUN_JSC_noSuchOptionAtAll: '1' })
      expect(code).not.toBe(0)
      expect(stderr).toContain('invalid JSC environment variable')
    },
  )
})
