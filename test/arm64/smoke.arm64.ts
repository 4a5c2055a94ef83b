// The Raspberry Pi executable under emulation, on the cores of a Pi 3, 4 and 5: init, serve, a job
// to the demo printer to COMPLETED, doctor. Run by `npm run test:arm64`, which needs
// qemu-user-static and the arm64 C libraries (.ci/run installs them); named outside the *.test.ts
// pattern so that `npm test` needs nothing but npm.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { binaryPath, build } from '../../scripts/build.ts'
import { jobBody } from '../support/hub.ts'
import { gradientJpeg } from '../support/images.ts'
import { spawnServe } from '../support/serve.ts'

const QEMU = '/usr/bin/qemu-aarch64-static'
/** Raspberry Pi 3, 4 and 5. */
const CPUS = ['cortex-a53', 'cortex-a72', 'cortex-a76'] as const
/** Emulation is slow: start-up alone takes seconds. */
const EMULATED_MS = 120_000

let home: string

beforeAll(async () => {
  if (!existsSync(QEMU))
    throw new Error(`${QEMU} is missing: apt-get install qemu-user-static, and the arm64 C libraries (see .ci/run)`)
  await build(['arm64'])
  home = mkdtempSync(join(tmpdir(), 'printhub-arm64-'))
})
afterAll(() => rmSync(home, { recursive: true, force: true }))

const emulated = (cpu: string) => [QEMU, '-cpu', cpu, binaryPath('arm64')]

function run(cpu: string, args: string[]): { code: number; stdout: string; stderr: string } {
  const result = Bun.spawnSync([...emulated(cpu), ...args], {
    cwd: home,
    env: { PATH: '/usr/bin:/bin' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() }
}

describe('the arm64 executable under emulation', () => {
  for (const cpu of CPUS) {
    test(
      `${cpu}: init, serve, a job with a QR code and a JPEG to COMPLETED, doctor`,
      async () => {
        const dataDir = join(home, cpu)
        const init = run(cpu, ['init', '--data', dataDir, '--json'])
        expect(init.code).toBe(0)
        const { projectId, apiKey } = JSON.parse(init.stdout)

        const serve = await spawnServe(dataDir, { json: true, executable: emulated(cpu), cwd: home })
        try {
          const response = await fetch(`${serve.url}/v1/projects/${projectId}/jobs`, {
            method: 'POST',
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify(
              jobBody({
                document: {
                  width: 58,
                  sections: [
                    { type: 'text', value: 'Pi ok €' },
                    { type: 'qr', value: 'https://example.com' },
                    { type: 'image', mediaType: 'image/jpeg', data: gradientJpeg(64, 32) },
                    { type: 'cut' },
                  ],
                },
              }),
            ),
          })
          expect(response.status).toBe(202)
          const { job } = await response.json()
          const state = async () => {
            const list = await fetch(`${serve.url}/v1/projects/${projectId}/jobs`, {
              headers: { authorization: `Bearer ${apiKey}` },
            })
            return ((await list.json()).jobs as { id: string; state: string }[]).find((j) => j.id === job.id)?.state
          }
          for (let now = await state(); now !== 'COMPLETED'; now = await state()) {
            expect(['PENDING', 'DISPATCHING', 'DELIVERED', 'PRINTING']).toContain(now!)
            await Bun.sleep(50)
          }
          // The hub holds its port: doctor sees printhub there, and everything else well.
          const port = new URL(serve.url).port
          const doctor = run(cpu, ['doctor', '--data', dataDir, '--host', '127.0.0.1', '--port', port, '--json'])
          const report = JSON.parse(doctor.stdout)
          expect(report.findings.find((f: { check: string }) => f.check === 'platform')).toMatchObject({
            verdict: 'ok',
            detail: 'arm64, 4 KB memory pages',
          })
          expect(report.findings.find((f: { check: string }) => f.check === 'port')).toMatchObject({ verdict: 'ok' })
          expect(report.findings.filter((f: { verdict: string }) => f.verdict === 'fail')).toEqual([])
          // The usb package's arm64 part is inside: it loads, and finds no USB bus on this machine.
          const detect = run(cpu, ['printers', 'detect', '--json'])
          expect(detect.code).toBe(0)
          expect(JSON.parse(detect.stdout).usbError ?? '').not.toContain('cannot be reached')
        } finally {
          expect(await serve.stop()).toBe(0)
        }
      },
      EMULATED_MS,
    )
  }
})
