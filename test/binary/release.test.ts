// The release script's changelog: an entry per release, listing the commits since the last one.
import { describe, expect, test } from 'bun:test'
import { changelogEntry, lastReleasedCommit } from '../../scripts/release.ts'

describe('release changelog', () => {
  test('an entry names the version, date and commit, lists the changes and the checksums', () => {
    expect(
      changelogEntry({
        version: '0.2.0',
        date: '2026-12-01',
        commit: 'abc123def456',
        changes: ['Images print', 'printhub doctor'],
        sums: ['aa  printhub-0.2.0-linux-arm64', 'bb  printhub-0.2.0-linux-x64'],
      }),
    ).toBe(
      '## 0.2.0, 2026-12-01 (commit abc123def456)\n\n- Images print\n- printhub ' +
        'doctor\n\nSHA-256:\n\n```\naa  printhub-0.2.0-linux-arm64\nbb  ' +
        'printhub-0.2.0-linux-x64\n```\n',
    )
    expect(changelogEntry({ version: '0.2.1', date: '2026-12-02', commit: 'abc', changes: [], sums: [] })).toContain(
      '- No changes since the last release.',
    )
  })

  test('the next release lists the commits since the newest entry', () => {
    const newest = changelogEntry({
      version: '0.2.0',
      date: '2026-12-01',
      commit: 'abc123def456',
      changes: ['x'],
      sums: [],
    })
    const older = changelogEntry({
      version: '0.1.0',
      date: '2026-11-21',
      commit: '0123456789ab',
      changes: ['y'],
      sums: [],
    })
    const changelog = `# Changelog\n\n${newest}\n${older}`
    expect(lastReleasedCommit(changelog)).toBe('abc123def456')
    expect(lastReleasedCommit('# Changelog\n')).toBeUndefined()
  })
})
