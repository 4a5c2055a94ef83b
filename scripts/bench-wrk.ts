// HTTP load with wrk (Debian: apt-get install wrk), the load generator the hub's targets were set
// with: written in C, it leaves the hub most of the CPUs the two share, where the JavaScript load
// generator (bench-load.ts) spends more of them than the hub does. Same spec, same result shape.
// The bench never installs wrk; without it the API section says so and uses bench-load.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KEY_PLACEHOLDER, type LoadResult, type LoadSpec } from './bench-load.ts'

export function wrkPath(): string | undefined {
  return Bun.which('wrk') ?? undefined
}

/**
 * Lua for wrk: the request (a key unique to each, when the body has the placeholder), and the figures as JSON at the
 * end.
 */
function script(spec: LoadSpec, nonce: string): string {
  const [before, after] = (spec.bodyTemplate ?? '').split(KEY_PLACEHOLDER)
  const lua = (text: string) => JSON.stringify(text)
  return `
local threads = {}
local counter = 0
setup = function(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end
wrk.method = ${lua(spec.method)}
${Object.entries(spec.headers ?? {})
  .map(([name, value]) => `wrk.headers[${lua(name)}] = ${lua(value)}`)
  .join('\n')}
${spec.bodyTemplate === undefined ? '' : `wrk.headers["content-type"] = "application/json"`}
request = function()
  ${
    after === undefined
      ? `return wrk.format(nil, nil, nil, ${spec.bodyTemplate === undefined ? 'nil' : lua(before!)})`
      : `counter = counter + 1
  return wrk.format(nil, nil, nil, ${lua(before!)} .. ${lua(nonce)} .. "-" .. tid .. "-" .. counter .. ${lua(after)})`
  }
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"durationUs":%d,"connect":%d,"read":%d,"write":%d,"status":%d,' ..
    '"timeout":%d,"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%f}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
`
}

interface WrkFigures {
  requests: number
  durationUs: number
  connect: number
  read: number
  write: number
  status: number
  timeout: number
  p50: number
  p90: number
  p99: number
  max: number
  mean: number
}

async function wrk(spec: LoadSpec, seconds: number, nonce: string, dir: string): Promise<WrkFigures> {
  const file = join(dir, `${nonce}.lua`)
  writeFileSync(file, script(spec, nonce))
  // Two threads, as many as the CPUs the bench is judged on; a request still unanswered after 10 s is a timeout.
  const child = Bun.spawn(
    [
      wrkPath()!,
      '-t',
      '2',
      '-c',
      String(spec.concurrency),
      '-d',
      `${Math.max(1, Math.round(seconds))}s`,
      '--timeout',
      '10s',
      '-s',
      file,
      spec.url,
    ],
    { stdout: 'pipe', stderr: 'pipe' },
  )
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${stderr}`)
  const line = stdout.split('\n').find((l) => l.startsWith('{"requests"'))
  if (!line) throw new Error(`wrk printed no figures:\n${stdout}${stderr}`)
  return JSON.parse(line) as WrkFigures
}

/** A warm-up run (not measured), then the measured one; latencies in milliseconds as bench-load.ts gives them. */
export async function runWrk(spec: LoadSpec): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'printhub-bench-wrk-'))
  try {
    const run = Date.now().toString(36)
    const warm = await wrk(spec, spec.warmupMs / 1000, `${run}w`, dir)
    const measured = await wrk(spec, spec.durationMs / 1000, `${run}m`, dir)
    const errorsOf = (f: WrkFigures) => f.connect + f.read + f.write + f.status + f.timeout
    const errors = errorsOf(warm) + errorsOf(measured)
    const seconds = measured.durationUs / 1e6
    const ok = measured.requests - errorsOf(measured)
    const ms = (us: number) => Math.round(us) / 1000
    const statuses: Record<string, number> = { [String(spec.expectStatus)]: ok + warm.requests - errorsOf(warm) }
    if (errors > 0) statuses['not ' + spec.expectStatus] = errors
    return {
      ok,
      errors,
      statuses,
      errorSamples: errors > 0 ? [`wrk: ${JSON.stringify({ warmUp: warm, measured })}`] : [],
      seconds,
      rate: Math.round(ok / seconds),
      latencyMs: {
        p50: ms(measured.p50),
        p90: ms(measured.p90),
        p99: ms(measured.p99),
        max: ms(measured.max),
        mean: ms(measured.mean),
      },
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
