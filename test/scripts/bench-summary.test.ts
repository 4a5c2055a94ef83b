// The bench's history is data, one run a line (docs/benchmarks.jsonl), and docs/benchmarks.md is
// the summary made from it (scripts/bench-summary.ts): every line is a run of the expected shape,
// and the summary in the repository is exactly what the history gives.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import {
  type BenchFigure,
  type BenchRun,
  figureKey,
  HISTORY_FILE,
  parseHistory,
  RANGE_RUNS,
  runProblem,
  SUMMARY_FILE,
  summarize,
} from '../../scripts/bench-summary.ts'

const history = readFileSync(HISTORY_FILE, 'utf8')

function run(at: string, figures: Partial<BenchFigure>[], more: Partial<BenchRun> = {}): BenchRun {
  return {
    at,
    commit: '0123456789ab',
    dirty: false,
    quick: false,
    machine: { cpus: 2, cpuModel: 'AMD EPYC', bun: '1.4.5', platform: 'linux x64' },
    sections: ['api'],
    figures: figures.map((figure) => ({
      section: 'api',
      name: 'submit p99',
      value: 1,
      unit: ' ms',
      target: '< 10 ms',
      pass: true,
      ...figure,
    })),
    ...more,
  }
}

describe('docs/benchmarks.jsonl', () => {
  test('holds one run a line, each of the expected shape, oldest first', () => {
    expect(history.endsWith('\n')).toBe(true)
    const lines = history.slice(0, -1).split('\n')
    expect(lines.length).toBeGreaterThanOrEqual(147)
    lines.forEach((line, i) => {
      const value: unknown = JSON.parse(line)
      expect({ line: i + 1, problem: runProblem(value) }).toEqual({ line: i + 1, problem: null })
    })
    const runs = parseHistory(history)
    expect(runs).toHaveLength(lines.length)
    expect(runs.map((r) => r.at)).toEqual(runs.map((r) => r.at).sort())
    // The first run as its Markdown said it: 2026-11-25 23:20 UTC · df260028fa6c (with changes) · full.
    const first = runs[0]!
    expect([first.at, first.commit, first.dirty, first.quick, first.sections.length, first.figures.length]).toEqual([
      '2026-11-25T23:20Z',
      'df260028fa6c',
      true,
      false,
      9,
      29,
    ])
    expect(first.figures[0]).toEqual({
      section: 'api',
      name: 'submissions / health',
      value: 24.1,
      unit: '%',
      target: '>= 25%',
      pass: false,
    })
  })
})

describe('docs/benchmarks.md', () => {
  test('is the summary the history gives (bun scripts/bench-summary.ts writes it)', () => {
    expect(readFileSync(SUMMARY_FILE, 'utf8')).toBe(summarize(parseHistory(history)))
  })

  test('stays short', () => {
    expect(readFileSync(SUMMARY_FILE, 'utf8').split('\n').length).toBeLessThanOrEqual(80)
  })
})

describe('the summary', () => {
  test('a figure is known across runs without what changes with each (its yardstick)', () => {
    expect(figureKey('submit p99 (yardstick 10.51 ms)')).toBe('submit p99')
    expect(figureKey('list p99 (1,000,000 jobs; read anew 2.36 ms, yardstick 1.48 ms)')).toBe(
      'list p99 (1,000,000 jobs)',
    )
    expect(figureKey('render a 576x1000 photo (JPEG)')).toBe('render a 576x1000 photo (JPEG)')
  })

  test("gives each figure its latest full run's value and its range over the last full runs, not quick runs", () => {
    const runs = [
      ...Array.from({ length: RANGE_RUNS + 2 }, (_, i) =>
        run(`2026-11-0${Math.floor(i / 10) + 1}T0${i % 10}:00Z`, [
          { name: `submit p99 (yardstick ${i} ms)`, value: 20 - i, pass: i % 2 === 0 },
        ]),
      ),
      run('2026-11-03T00:00Z', [{ value: 99, pass: false }], { quick: true }),
    ]
    const text = summarize(runs)
    // The newest full run gave 9 ms; the last ten full runs 9 to 18 ms, met in five.
    expect(text).toContain('| api | submit p99 (yardstick 11 ms) | 9 ms | < 10 ms | MISS | 9-18 ms | 5 of 10 |')
    expect(text).toContain('13 runs from 2026-11-01 to 2026-11-03, 12 of them full.')
    expect(text).not.toContain('99 ms')
  })

  test('takes each section from its own latest run, and says when that section failed since', () => {
    const runs = [
      run(
        '2026-11-01T00:00Z',
        [{ name: 'render a receipt', section: 'render', value: 0.2, target: '< 1 ms' }, { value: 5 }],
        { sections: ['api', 'render'] },
      ),
      run('2026-11-02T00:00Z', [{ value: 7, pass: true }]),
      run('2026-11-03T00:00Z', [], { sections: ['render'], failed: { render: 'the renderer stopped' } }),
    ]
    const text = summarize(runs)
    expect(text).toContain('| api | submit p99 | 7 ms | < 10 ms | PASS | 5-7 ms | 2 of 2 |')
    expect(text).toContain('| render | render a receipt | 0.2 ms | < 1 ms | PASS | 0.2 ms | 1 of 1 |')
    expect(text).toContain('- render failed in its newest full run, 2026-11-03 00:00 UTC: the renderer stopped')
    expect(text).toContain('- 2026-11-01 00:00 UTC, 0123456789ab (2 CPUs, AMD EPYC, Bun 1.4.5, linux x64): render')
    expect(text).toContain('- 2026-11-02 00:00 UTC, 0123456789ab (2 CPUs, AMD EPYC, Bun 1.4.5, linux x64): api')
  })

  test('a line that is not a run is named with its problem', () => {
    const good = JSON.stringify(run('2026-11-01T00:00Z', [{}]))
    expect(parseHistory(`${good}\n`)).toHaveLength(1)
    expect(() => parseHistory(`${good}\n{"at":"yesterday"}\n`)).toThrow('line 2: at: not a UTC time to the minute')
    expect(() => parseHistory(`${good}\nnot json\n`)).toThrow('line 2')
    expect(
      runProblem({
        ...JSON.parse(good),
        figures: [{ section: 'api', name: 'x', value: '1 ms', unit: '', target: '', pass: true }],
      }),
    ).toBe('figures[0].value: not a number')
    expect(
      runProblem({
        ...JSON.parse(good),
        figures: [{ section: 'render', name: 'x', value: 1, unit: '', target: '', pass: true }],
      }),
    ).toBe("figures[0].section: not one of the run's sections")
    expect(runProblem({ ...JSON.parse(good), commit: 'df26 (with changes)' })).toBe('commit: not 12 hex digits')
  })
})
