// A clone of the repository tests itself with nothing outside the checkout: no file of src/, test/
// or scripts/ refers to a path outside it, the vendored OpenPrinter contract is as copied, CI runs
// the README's test line, and that line installs from Debian what the suite needs and lacks
// (the decision of scripts/test-prerequisites.ts), and the client's suite runs under Node whatever
// this machine's Node.js (scripts/test-node.ts).
import { describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fetchNode, OLDEST_NODE, OLDEST_NODE_VERSION, TEST_NODE_VERSION } from '../scripts/node-binary.ts'
import {
  CHROMIUM,
  DEBOOTSTRAP,
  installCommands,
  type Machine,
  missingPrerequisites,
  FUSE,
  FUSE_HEADERS,
  C_COMPILER,
  LIBFAKETIME,
  plan,
  SYSTEMD_CONTAINER,
  POSTGRESQL,
  postgresBinDir,
  ZBAR,
} from '../scripts/test-prerequisites.ts'

const ROOT = join(import.meta.dir, '..')
const OPENPRINTER = join(ROOT, 'src', 'protocol', 'openprinter')

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

/** Text files only: pictures and other binary files hold no paths. */
function textOf(file: string): string | null {
  const bytes = readFileSync(file)
  return bytes.includes(0) ? null : bytes.toString('utf8')
}

/** What in `text` (of `file`) points outside the checkout. */
function outsidePaths(file: string, text: string): string[] {
  const found: string[] = []
  // Places known to hold the protocol's files, or this machine's, outside any clone.
  for (const match of text.matchAll(/(?:\.\.\/)+shared\b|\/tmp\/shared\b|\/work\//g)) found.push(match[0])
  if (file.endsWith('.ts')) {
    // Relative paths in code (imports and file paths) resolved from the file's folder.
    for (const match of text.matchAll(/['"`](\.\.\/[^'"`$]*)['"`]/g)) {
      if (relative(ROOT, resolve(dirname(file), match[1]!)).startsWith('..')) found.push(match[1]!)
    }
    // join(import.meta.dir, '..', ...), the form the suite's helpers use.
    for (const match of text.matchAll(/join\(\s*import\.meta\.dir((?:\s*,\s*'[^']*')+)\s*\)/g)) {
      const parts = [...match[1]!.matchAll(/'([^']*)'/g)].map((part) => part[1]!)
      if (relative(ROOT, resolve(dirname(file), ...parts)).startsWith('..')) found.push(match[0])
    }
  }
  return found
}

describe('the repository', () => {
  test(
    'no file of src/, test/ or scripts/ (nor package.json, .ci/run, ' +
      'README.md, docs/) refers to a path outside the checkout',
    () => {
      const files = [
        ...['src', 'test', 'scripts', 'docs'].flatMap((dir) => filesUnder(join(ROOT, dir))),
        ...['package.json', '.ci/run', 'README.md'].map((name) => join(ROOT, name)),
      ]
      const wrong: string[] = []
      for (const file of files) {
        const text = textOf(file)
        if (text === null) continue
        for (const path of outsidePaths(file, text)) wrong.push(`${relative(ROOT, file)}: ${path}`)
      }
      expect(wrong).toEqual([])
    },
  )

  test('the check itself sees such paths', () => {
    const file = join(ROOT, 'test', 'support', 'example.ts')
    // Written so that this file does not hold the paths it checks for.
    const up = (times: number) => Array(times).fill("'..'").join(', ')
    expect(outsidePaths(file, `join(import.meta.dir, ${up(3)}, 'elsewhere', 'openprinter')`)).toHaveLength(1)
    expect(outsidePaths(file, `join(import.meta.dir, ${up(2)}, 'src', 'protocol', 'openprinter')`)).toEqual([])
    expect(outsidePaths(file, `import x from '${'../'.repeat(3)}elsewhere/x.ts'`)).toHaveLength(1)
    expect(outsidePaths(file, `import x from '${'../'.repeat(2)}src/main.ts'`)).toEqual([])
    const beside = 'sh' + 'ared' // the folder a checkout may sit beside, named so that no line here points at it
    expect(outsidePaths(join(ROOT, 'README.md'), `see ${'../'.repeat(2)}${beside}/openprinter`)).toHaveLength(1)
    expect(outsidePaths(join(ROOT, 'README.md'), `see /${'work'}/main`)).toHaveLength(1)
  })

  test('the vendored OpenPrinter schema and fixtures are as copied (SHA256SUMS), every one of them listed', () => {
    const sums = readFileSync(join(OPENPRINTER, 'SHA256SUMS'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+\*?/) as [string, string])
    const changed = sums
      .filter(
        ([sum, name]) =>
          createHash('sha256')
            .update(readFileSync(join(OPENPRINTER, name)))
            .digest('hex') !== sum,
      )
      .map(([, name]) => name)
    expect(changed).toEqual([])
    const listed = new Set(sums.map(([, name]) => name))
    const files = filesUnder(OPENPRINTER).map((file) => relative(OPENPRINTER, file))
    expect(files.filter((name) => !listed.has(name) && name !== 'SHA256SUMS' && name !== 'ORIGIN.md').sort()).toEqual(
      [],
    )
    expect(files).toContain('LICENSE')
    expect(files).toContain('schema/openprinter.schema.json')
  })

  test("CI runs the README's test line, and npm test first sees to its prerequisites", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const line = 'npm ci && npm test'
    expect(readme).toContain(`\`\`\`sh\n${line}\n\`\`\``)
    expect(readFileSync(join(ROOT, '.ci', 'run'), 'utf8')).toContain(`'${line}'`)
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts
    expect(scripts.test.startsWith('bun scripts/test-prerequisites.ts && ')).toBe(true)
  })
})

describe("npm test's prerequisites (scripts/test-prerequisites.ts)", () => {
  /** A machine with `commands` on PATH (besides apt-get), as root unless said. */
  const machine = (
    commands: string[],
    options: {
      root?: boolean
      env?: Record<string, string>
      executables?: string[]
      apt?: boolean
      systemd?: boolean
      postgres?: boolean
      fuse?: boolean
      faketime?: boolean
    } = {},
  ): Machine => ({
    postgresBin: options.postgres === false ? null : '/usr/lib/postgresql/15/bin',
    fuseHeaders: options.fuse !== false,
    faketime: options.faketime !== false,
    which: (command) =>
      [
        ...commands,
        ...(options.systemd === false ? [] : ['debootstrap', 'systemd-nspawn']),
        ...(options.fuse === false ? [] : ['fusermount3', 'cc']),
      ].includes(command) ||
      (command === 'apt-get' && options.apt !== false)
        ? `/usr/bin/${command}`
        : null,
    isExecutable: (path) => (options.executables ?? []).includes(path),
    env: options.env ?? {},
    root: options.root ?? true,
  })

  test('nothing to do when zbarimg and chromium are there', () => {
    expect(plan(machine(['zbarimg', 'chromium']))).toEqual({ kind: 'ready' })
  })

  test('as root, installs exactly what is missing, without recommended packages', () => {
    expect(plan(machine([]))).toEqual({
      kind: 'install',
      missing: [ZBAR, CHROMIUM],
      commands: installCommands('apt-get', [ZBAR, CHROMIUM]),
    })
    expect(installCommands('apt-get', [ZBAR, CHROMIUM])).toEqual([
      ['apt-get', 'update', '-qq'],
      ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'zbar-tools', 'chromium'],
    ])
    expect(missingPrerequisites(machine(['chromium']))).toEqual([ZBAR])
    expect(missingPrerequisites(machine(['zbarimg']))).toEqual([CHROMIUM])
    expect(missingPrerequisites(machine(['zbarimg', 'chromium'], { systemd: false }))).toEqual([
      DEBOOTSTRAP,
      SYSTEMD_CONTAINER,
    ])
    expect(missingPrerequisites(machine(['zbarimg', 'chromium'], { postgres: false }))).toEqual([POSTGRESQL])
    expect(missingPrerequisites(machine(['zbarimg', 'chromium'], { fuse: false }))).toEqual([
      FUSE,
      FUSE_HEADERS,
      C_COMPILER,
    ])
    expect(missingPrerequisites(machine(['zbarimg', 'chromium'], { faketime: false }))).toEqual([LIBFAKETIME])
    // Found where Debian puts them when PATH lacks /usr/sbin.
    expect(
      missingPrerequisites(
        machine(['zbarimg', 'chromium'], {
          systemd: false,
          executables: ['/usr/sbin/debootstrap', '/usr/bin/systemd-nspawn'],
        }),
      ),
    ).toEqual([])
  })

  test('not root: stops and names the command to run', () => {
    const decided = plan(machine(['chromium'], { root: false }))
    expect(decided.kind).toBe('stop')
    if (decided.kind === 'stop') {
      expect(decided.message).toContain('sudo apt-get install -y --no-install-recommends zbar-tools\n')
      expect(decided.message).toContain('zbarimg')
    }
    expect(plan(machine(['zbarimg', 'chromium'], { root: false }))).toEqual({ kind: 'ready' })
  })

  test("PostgreSQL's programs: the newest version that has both initdb and pg_ctl", () => {
    const root = mkdtempSync(join(tmpdir(), 'printhub-pg-bin-'))
    try {
      expect(postgresBinDir(join(root, 'none'))).toBeNull()
      for (const [version, programs] of [
        ['13', ['initdb', 'pg_ctl']],
        ['15', ['initdb']],
        ['9', ['initdb', 'pg_ctl']],
      ] as const) {
        mkdirSync(join(root, version, 'bin'), { recursive: true })
        for (const program of programs) writeFileSync(join(root, version, 'bin', program), '')
      }
      expect(postgresBinDir(root)).toBe(join(root, '13', 'bin'))
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  test('no apt-get: stops and names the packages', () => {
    const decided = plan(machine(['zbarimg'], { apt: false }))
    expect(decided.kind).toBe('stop')
    if (decided.kind === 'stop') expect(decided.message).toContain('no apt-get')
  })

  test("another Chromium given with PRINTHUB_CHROMIUM replaces Debian's; a wrong one stops the run", () => {
    expect(
      plan(
        machine(['zbarimg'], {
          env: { PRINTHUB_CHROMIUM: '/opt/chromium/chrome' },
          executables: ['/opt/chromium/chrome'],
        }),
      ),
    ).toEqual({ kind: 'ready' })
    expect(plan(machine(['zbarimg', 'chromium'], { env: { PRINTHUB_CHROMIUM: '/opt/nothing' } })).kind).toBe('stop')
  })

  test('the script with an empty PATH, in a dry run, decides to install both (or, not as root, says how)', () => {
    const empty = mkdtempSync(join(tmpdir(), 'printhub-empty-path-'))
    try {
      const env: Record<string, string> = { PATH: empty }
      if (process.env.HOME) env.HOME = process.env.HOME
      const run = Bun.spawnSync([process.execPath, join(ROOT, 'scripts', 'test-prerequisites.ts'), '--dry-run'], {
        env,
        cwd: ROOT,
      })
      const output = run.stdout.toString() + run.stderr.toString()
      if (process.getuid?.() === 0) {
        expect(run.exitCode).toBe(0)
        expect(output).toContain('zbar-tools: zbarimg')
        // debootstrap and systemd-nspawn are found where Debian keeps them when they are installed.
        expect(output).toMatch(
          new RegExp(
            /would run: DEBIAN_FRONTEND=noninteractive \S*apt-get install -y -qq --no-install-recommends /.source +
              /zbar-tools chromium( debootstrap)?( systemd-container)?/.source +
              /( fuse3)?( libfuse3-dev)?( gcc)?( libfaketime)?\n/.source,
          ),
        )
      } else {
        expect(run.exitCode).toBe(1)
        expect(output).toMatch(
          new RegExp(
            /sudo apt-get install -y --no-install-recommends zbar-tools chromium( debootstrap)?( systemd-container)?/
              .source + /( fuse3)?( libfuse3-dev)?( gcc)?( libfaketime)?\n/.source,
          ),
        )
      }
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })
})

describe("the client's suite under Node (scripts/test-node.ts)", () => {
  test("runs with the Node.js pinned for it when this machine's is Debian 12's " +
    '(Node 18, without --test-timeout or the JUnit reporter)', () => {
    for (const version of [OLDEST_NODE_VERSION, TEST_NODE_VERSION]) expect(fetchNode(version)).toBeNull()
    // The `node` on PATH is Node 18, as on a fresh Debian 12 with its own nodejs package.
    const folder = mkdtempSync(join(tmpdir(), 'printhub-node18-path-'))
    try {
      symlinkSync(OLDEST_NODE, join(folder, 'node'))
      const env = { ...process.env, PATH: `${folder}:${process.env.PATH ?? ''}` }
      expect(Bun.spawnSync(['node', '--version'], { env }).stdout.toString().trim()).toBe(`v${OLDEST_NODE_VERSION}`)
      expect(
        Bun.spawnSync(['node', '--test', '--test-timeout=1000'], { env, stderr: 'pipe' }).stderr.toString(),
      ).toContain('bad option: --test-timeout')
      const run = Bun.spawnSync(
        [process.execPath, join(ROOT, 'scripts', 'test-node.ts'), '--out', join(folder, 'out'), 'config.test.ts'],
        { env, cwd: ROOT, stdout: 'pipe', stderr: 'pipe' },
      )
      expect(run.exitCode, run.stdout.toString() + run.stderr.toString()).toBe(0)
      const report = readFileSync(join(folder, 'out', 'node-junit.xml'), 'utf8')
      expect(report.match(/<testcase[ >]/g)?.length).toBeGreaterThan(3)
      expect(report).not.toContain('<failure')
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  }, 60_000)
})
