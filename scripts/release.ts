// `npm run release`: from a clean checkout, runs every test (the suite, the end-to-end tests on the
// x64 executable, the arm64 one under qemu), builds both executables, copies them to
// dist/release/ under versioned names with their SHA256SUMS, and adds an entry to CHANGELOG.md
// (the commits since the last release, and the checksums). Commit CHANGELOG.md afterwards.
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import packageJson from '../package.json'
import { binaryPath, build } from './build.ts'

const ROOT = join(import.meta.dir, '..')
const CHANGELOG = join(ROOT, 'CHANGELOG.md')
const RELEASE = join(ROOT, 'dist', 'release')

function git(args: string[]): string {
  const result = Bun.spawnSync(['git', ...args], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
  if (result.exitCode !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr.toString()}`)
  return result.stdout.toString().trim()
}

/** The commit the newest entry of a changelog was released from, if any. */
export function lastReleasedCommit(changelog: string): string | undefined {
  return /^## .*\(commit ([0-9a-f]{7,40})\)$/m.exec(changelog)?.[1]
}

/** One changelog entry: the version, the date and commit, what changed, the checksums. */
export function changelogEntry({
  version,
  date,
  commit,
  changes,
  sums,
}: {
  version: string
  date: string
  commit: string
  changes: readonly string[]
  sums: readonly string[]
}): string {
  const lines = changes.length > 0 ? changes.map((change) => `- ${change}`) : ['- No changes since the last release.']
  return (
    `## ${version}, ${date} (commit ` +
    `${commit})\n\n${lines.join('\n')}\n\nSHA-256:\n\n\`\`\`\n${sums.join('\n')}\n\`\`\`\n`
  )
}

async function release(): Promise<void> {
  if (git(['status', '--porcelain', '--untracked-files=no']) !== '')
    throw new Error('the checkout has uncommitted changes: a release is built from a commit')
  for (const script of ['test', 'test:binary', 'test:arm64']) {
    console.log(`npm run ${script}...`)
    const run = Bun.spawnSync(['npm', 'run', '-s', script], { cwd: ROOT, stdout: 'inherit', stderr: 'inherit' })
    if (run.exitCode !== 0) throw new Error(`npm run ${script} failed: no release`)
  }
  await build()
  rmSync(RELEASE, { recursive: true, force: true })
  mkdirSync(RELEASE, { recursive: true })
  const sums: string[] = []
  for (const arch of ['arm64', 'x64'] as const) {
    const name = `printhub-${packageJson.version}-linux-${arch}`
    copyFileSync(binaryPath(arch), join(RELEASE, name))
    sums.push(
      `${createHash('sha256')
        .update(readFileSync(join(RELEASE, name)))
        .digest('hex')}  ${name}`,
    )
  }
  writeFileSync(join(RELEASE, 'SHA256SUMS'), `${sums.join('\n')}\n`)

  const commit = git(['rev-parse', '--short=12', 'HEAD'])
  const changelog = existsSync(CHANGELOG) ? readFileSync(CHANGELOG, 'utf8') : '# Changelog\n'
  const since = lastReleasedCommit(changelog)
  const changes = since
    ? git(['log', '--format=%s', `${since}..HEAD`])
        .split('\n')
        .filter(Boolean)
    : ['First release.']
  const date = new Date().toISOString().slice(0, 10)
  const entry = changelogEntry({ version: packageJson.version, date, commit, changes, sums })
  const [title, ...rest] = changelog.split('\n')
  writeFileSync(CHANGELOG, `${title}\n\n${entry}${rest.join('\n').replace(/^\n+/, '\n')}`)
  console.log(
    `released ${packageJson.version} (commit ${commit}) in dist/release/; CHANGELOG.md has its entry: commit it.`,
  )
}

if (import.meta.main) await release()
