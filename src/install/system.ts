// What an upgrade asks of the machine, behind two small interfaces so the steps are tested with
// stand-ins and for real: the service manager (systemctl, journalctl) and the health prober (the
// hub's /health, with the server ID it answers with).
import { SERVER_ID_HEADER } from '../api/routes/health.ts'

export const SERVICE = 'printhub.service'

export interface ServiceManager {
  /** Runs `systemctl ACTION printhub.service`; the problem, in words, when it fails. */
  run(action: 'start' | 'stop' | 'restart' | 'reset-failed'): string | undefined
  /** Runs `systemctl daemon-reload` (after a unit file changed); the problem, in words, when it fails. */
  reload(): string | undefined
  /** The service's last log lines (empty when there is no journal). */
  journal(lines: number): string[]
}

export interface HealthAnswer {
  status: number
  serverId: string | undefined
}

export interface HealthProber {
  /** One look at /health; undefined when nothing answers. */
  probe(): Promise<HealthAnswer | undefined>
}

function command(argv: string[]): { code: number; output: string } {
  try {
    const result = Bun.spawnSync(argv, { stdout: 'pipe', stderr: 'pipe' })
    return { code: result.exitCode, output: `${result.stdout.toString()}${result.stderr.toString()}`.trim() }
  } catch (error) {
    return { code: 127, output: (error as Error).message }
  }
}

/** systemctl and journalctl as found on PATH. */
export const systemd: ServiceManager = {
  run(action) {
    const { code, output } = command(['systemctl', action, SERVICE])
    return code === 0
      ? undefined
      : `"systemctl ${action} ${SERVICE}" failed (exit ${code})${output ? `: ${output}` : ''}`
  },
  reload() {
    const { code, output } = command(['systemctl', 'daemon-reload'])
    return code === 0 ? undefined : `"systemctl daemon-reload" failed (exit ${code})${output ? `: ${output}` : ''}`
  },
  journal(lines) {
    const { code, output } = command([
      'journalctl',
      '--unit',
      SERVICE,
      '--lines',
      String(lines),
      '--no-pager',
      '--output',
      'cat',
    ])
    return code === 0 && output && !output.startsWith('-- No entries') ? output.split('\n').slice(-lines) : []
  },
}

/** The hub's /health at `host`:`port` over HTTP, each look within `timeoutMs`. */
export function httpHealth(host: string, port: number, timeoutMs = 2_000): HealthProber {
  const address = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host
  const url = `http://${address}:${port}/health`
  return {
    async probe() {
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
        await response.arrayBuffer()
        return { status: response.status, serverId: response.headers.get(SERVER_ID_HEADER) ?? undefined }
      } catch {
        return undefined
      }
    },
  }
}

export type HealthOutcome = { ok: true; afterMs: number; diskFull: boolean } | { ok: false; last: string }

/** How often /health is asked (250 ms unless given), and by which clock. */
export interface HealthPolling {
  everyMs?: number
  now?: () => number
}

/**
 * Waits until the hub with `serverId` answers /health (200; or 503, running with its disk full),
 * looking every `everyMs`, for at most `timeoutMs`.
 */
export async function waitForHealth(
  prober: HealthProber,
  serverId: string,
  timeoutMs: number,
  { everyMs = 250, now = Date.now }: HealthPolling = {},
): Promise<HealthOutcome> {
  const start = now()
  let last = 'nothing answered'
  for (;;) {
    const answer = await prober.probe()
    if (answer) {
      if (answer.serverId === serverId && (answer.status === 200 || answer.status === 503))
        return { ok: true, afterMs: now() - start, diskFull: answer.status === 503 }
      last =
        answer.serverId === serverId
          ? `it answered ${answer.status}`
          : `another server answered (server ID ${answer.serverId ?? 'not given'}, not ${serverId})`
    }
    if (now() - start >= timeoutMs) return { ok: false, last }
    await Bun.sleep(everyMs)
  }
}
