// The workers' scheduler: one pass at a time per worker, the next a period after the last ended, a pass that fails
// logged and followed by the next, news that wakes a worker at once, and a stop that ends passes under way, stops each
// worker and starts nothing after. Real timers, short periods; every wait is for an outcome.
import { describe, expect, test } from 'bun:test'
import { Log } from '../../src/platform/log.ts'
import { Workers } from '../../src/workers/workers.ts'
import { waitFor } from '../support/wait.ts'

function recordingLog(): { log: Log; lines: string[] } {
  const lines: string[] = []
  return { log: new Log({ format: 'text', level: 'debug', journal: false }, (line) => lines.push(line)), lines }
}

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {}
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

describe('the workers', () => {
  test('passes of one worker never overlap, and the next comes a period after the last ended', async () => {
    const { log } = recordingLog()
    let running = 0
    let most = 0
    let passes = 0
    const workers = new Workers(log.for('hub')).add({
      name: 'slow',
      everyMs: 1,
      firstAfterMs: 0,
      pass: async () => {
        running++
        most = Math.max(most, running)
        await Bun.sleep(5)
        running--
        passes++
      },
    })
    workers.start()
    await waitFor(() => passes >= 5)
    await workers.stop()
    expect(most).toBe(1)
  })

  test('a pass that fails is logged with its worker, and the next pass runs', async () => {
    const { log, lines } = recordingLog()
    let passes = 0
    const workers = new Workers(log.for('hub')).add({
      name: 'failing',
      log: log.for('retention'),
      everyMs: 1,
      firstAfterMs: 0,
      pass: () => {
        passes++
        if (passes === 1) throw new Error('disk I/O error')
      },
    })
    workers.start()
    await waitFor(() => passes >= 2)
    await workers.stop()
    const line = lines.find((text) => text.includes('a failing pass failed; the next one tries again'))
    expect(line).toContain('retention')
    expect(line).toContain('disk I/O error')
  })

  test('news wakes a worker at once, and news during a pass brings one more pass right after it', async () => {
    const { log } = recordingLog()
    let wake = () => {}
    const first = gate()
    let passes = 0
    const workers = new Workers(log.for('hub')).add({
      name: 'outbox',
      // Far beyond the test: every pass here is one the news asked for.
      everyMs: 3_600_000,
      start: (news) => (wake = news),
      pass: async () => {
        passes++
        if (passes === 1) await first.opened
      },
    })
    workers.start()
    expect(passes).toBe(0)
    wake()
    await waitFor(() => passes === 1)
    // Twice while the first pass runs: one pass after it, not two, and none alongside it.
    wake()
    wake()
    expect(passes).toBe(1)
    first.open()
    await waitFor(() => passes === 2)
    await workers.stop()
    expect(passes).toBe(2)
  })

  test('stop tells a pass under way to end, stops every worker, waits for both, and starts no pass after', async () => {
    const { log } = recordingLog()
    const order: string[] = []
    let seen: AbortSignal | undefined
    let later = 0
    const workers = new Workers(log.for('hub'))
      .add({
        name: 'long',
        everyMs: 1,
        firstAfterMs: 0,
        pass: async (signal) => {
          seen = signal
          await new Promise((resolve) => signal.addEventListener('abort', resolve))
          order.push('long pass ended')
        },
        stop: () => void order.push('long stopped'),
      })
      .add({ name: 'idle', everyMs: 1, firstAfterMs: 1, pass: () => void later++ })
      .add({
        name: 'thread',
        stop: async () => {
          await Bun.sleep(1)
          order.push('thread stopped')
        },
      })
    workers.start()
    await waitFor(() => seen !== undefined && later > 0)
    await workers.stop()
    expect(seen?.aborted).toBe(true)
    expect(order.sort()).toEqual(['long pass ended', 'long stopped', 'thread stopped'])
    const after = later
    await Bun.sleep(20)
    expect(later).toBe(after)
  })

  test('a worker is added before the workers start, not after', () => {
    const { log } = recordingLog()
    const workers = new Workers(log.for('hub'))
    workers.start()
    expect(() => workers.add({ name: 'late', everyMs: 1, pass: () => {} })).toThrow(/after the workers started/)
  })
})
