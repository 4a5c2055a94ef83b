// The direction of dependencies written down in docs/architecture.md holds: every import in src/
// goes from a folder to a folder on a lower floor, every folder is on a floor, nothing imports the
// client library, the dashboard's browser code imports only its own modules and the protocol, the
// edges and the workers import no store (every change goes through the services), no file of src/ or scripts/ is
// longer than 400 lines as the formatter leaves it, and no line of src/, scripts/ or test/ is
// longer than 120 characters.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const ROOT = join(import.meta.dir, '..')
const SRC = join(ROOT, 'src')
const MAX_LINES = 400
/** The formatter's line width (biome.json), which it cannot keep for a long string, regex or comment. */
const MAX_LINE_LENGTH = 120

function filesUnder(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return filesUnder(path, pattern)
    return pattern.test(name) ? [path] : []
  })
}

/** The floors of docs/architecture.md: folder (or `main.ts`) → floor. */
function floors(): Map<string, number> {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')
  const table = new Map<string, number>()
  for (const [, floor, cell] of doc.matchAll(/^\| (\d+) \| ([^|]+) \|/gm)) {
    for (const [, name] of cell!.matchAll(/`([^`]+?)\/?`/g)) table.set(name!, Number(floor))
  }
  return table
}

/** The part of src/ a file belongs to: its top folder, or the file itself at the top. */
function partOf(file: string): string {
  return relative(SRC, file).split('/')[0]!
}

/** `import … from './x'` and `export … from './x'`; `import('./x')`; `import './x'`. */
const IMPORT_FORMS = [
  /(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s*['"](\.[^'"]+)['"]/,
  /\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/,
  /(?:^|\n)\s*import\s+['"](\.[^'"]+)['"]/,
]
const IMPORTS = new RegExp(IMPORT_FORMS.map((form) => form.source).join('|'), 'g')

/** Every relative import of a file (values and types, static and dynamic, text imports too). */
function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8')
  const specifiers = [...source.matchAll(IMPORTS)]
  return specifiers.map((match) => resolve(dirname(file), (match[1] ?? match[2] ?? match[3])!))
}

const sources = filesUnder(SRC, /\.tsx?$/)

describe('architecture', () => {
  const table = floors()
  /** Whether `from` may import `to`: only a lower floor (a sibling on the same floor may not). */
  const allowed = (from: string, to: string) => from === to || table.get(from)! > table.get(to)!

  test('the table of docs/architecture.md names every part of src/', () => {
    const parts = new Set(sources.map(partOf))
    expect([...parts].filter((part) => !table.has(part)).sort()).toEqual([])
    expect([...table.keys()].filter((name) => !parts.has(name)).sort()).toEqual([])
  })

  test('every import goes to a lower floor (no cycle, no arrow back up)', () => {
    const wrong: string[] = []
    for (const file of sources) {
      const from = partOf(file)
      for (const target of importsOf(file)) {
        const inside = relative(SRC, target)
        // Data outside src/: the package's version and the printer profiles.
        if (inside.startsWith('..')) {
          if (!/^\.\.\/(package\.json|printers\/[^/]+\.json)$/.test(inside))
            wrong.push(`${relative(ROOT, file)} imports ${relative(ROOT, target)}, outside src/`)
          continue
        }
        const to = partOf(target)
        if (to === from) continue
        if (!allowed(from, to))
          wrong.push(
            `${relative(ROOT, file)} (${from}, floor ${table.get(from)}) imports ` +
              `${inside} (${to}, floor ${table.get(to)})`,
          )
      }
    }
    expect(wrong).toEqual([])
  })

  test('nothing in src/ imports the client library, and it imports only the protocol', () => {
    const wrong: string[] = []
    for (const file of sources) {
      const from = partOf(file)
      for (const target of importsOf(file)) {
        const to = partOf(target)
        if (from !== 'client' && to === 'client') wrong.push(`${relative(ROOT, file)} imports the client`)
        if (from === 'client' && to !== 'client' && to !== 'protocol')
          wrong.push(`${relative(ROOT, file)} imports ${relative(SRC, target)}`)
      }
    }
    expect(wrong).toEqual([])
  })

  test("the dashboard's browser code imports only its own modules and the protocol (the admin API's contract)", () => {
    const browser = join(SRC, 'dashboard', 'browser')
    const wrong = sources
      .filter((file) => file.startsWith(`${browser}/`))
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => !target.startsWith(`${browser}/`) && partOf(target) !== 'protocol')
          .map((target) => `${relative(ROOT, file)} imports ${relative(SRC, target)}`),
      )
    expect(wrong).toEqual([])
    // The check sees the browser code's imports of the protocol.
    expect(importsOf(join(browser, 'app.ts')).map(partOf)).toContain('protocol')
  })

  test('the edges (CLI, admin API, public API, dashboard, polling) and the workers import no store of any kind', () => {
    const edges = ['cli', 'admin', 'api', 'dashboard', 'polling', 'workers']
    const wrong = sources
      .filter((file) => edges.includes(partOf(file)))
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => partOf(target) === 'store' || partOf(target) === 'pgstore')
          .map((target) => `${relative(ROOT, file)} imports ${relative(SRC, target)}`),
      )
    expect(wrong).toEqual([])
    // The check sees imports of the store, type imports (the services' facade's) and values (the backups').
    expect(importsOf(join(SRC, 'services', 'hub-services.ts')).map(partOf)).toContain('store')
    expect(importsOf(join(SRC, 'services', 'backup.ts')).map(partOf)).toContain('store')
  })

  test(
    'the web framework only at the HTTP edges; SQLite only in the store, the ' +
      "SQLite kit and the agent's ledgers (and their schema); PostgreSQL only in its store and where the hub opens it",
    () => {
      const users = (pkg: string) =>
        sources
          .filter((file) => new RegExp(`from '${pkg}'`).test(readFileSync(file, 'utf8')))
          .map((file) => relative(SRC, file))
      expect(users('elysia').filter((file) => !/^(api|admin|dashboard|polling|http)\//.test(file))).toEqual([])
      expect(
        users('bun:sqlite').filter(
          (file) => !/^(store|sqlite)\//.test(file) && !/^agent\/(builtin-)?ledger(-schema)?\.ts$/.test(file),
        ),
      ).toEqual([])
      const postgres = sources
        .filter((file) => /import [^;]*\bSQL\b[^;]*from 'bun'/.test(readFileSync(file, 'utf8')))
        .map((file) => relative(SRC, file))
      expect(postgres.filter((file) => !/^pgstore\//.test(file) && file !== 'hub/postgres-store.ts')).toEqual([])
      expect(postgres).toContain('hub/postgres-store.ts')
    },
  )

  test(
    `no file of src/ or scripts/ is longer than ${MAX_LINES} lines, counted as the files are: ` +
      "formatted, since npm test runs the formatter's check first",
    () => {
      const long = [...sources, ...filesUnder(join(ROOT, 'scripts'), /\.ts$/)]
        .map((file) => ({ file: relative(ROOT, file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
        .filter(({ lines }) => lines > MAX_LINES)
      expect(long).toEqual([])
    },
  )

  test(`no line of src/, scripts/ or test/ is longer than ${MAX_LINE_LENGTH} characters`, () => {
    const code = [
      ...sources,
      ...filesUnder(join(ROOT, 'scripts'), /\.ts$/),
      // Not test/fixtures/: data as released printhubs left it, kept as it was made.
      ...filesUnder(join(ROOT, 'test'), /\.ts$/).filter((file) => !relative(ROOT, file).startsWith('test/fixtures/')),
    ]
    const long = code.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => {
          const length = [...line].length
          return length > MAX_LINE_LENGTH ? [`${relative(ROOT, file)}:${i + 1} (${length} characters)`] : []
        }),
    )
    expect(long).toEqual([])
  })

  test('the check itself: it sees imports, and refuses arrows up and between siblings', () => {
    expect(allowed('dispatcher', 'store')).toBe(true)
    expect(allowed('store', 'dispatcher')).toBe(false)
    expect(allowed('api', 'admin')).toBe(false)
    expect(allowed('gateway', 'agent')).toBe(false)
    const imported = importsOf(join(SRC, 'hub/start.ts')).map((target) => partOf(target))
    expect(imported).toContain('dispatcher')
    expect(imported).toContain('api')
    expect(importsOf(join(SRC, 'dashboard/assets.ts')).some((target) => target.endsWith('browser/index.html'))).toBe(
      true,
    )
  })
})
