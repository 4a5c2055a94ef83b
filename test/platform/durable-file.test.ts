// Small files written whole or not at all (platform/durable-file.ts): what is left after a write, and after one that
// failed. That a power cut leaves the key whole is shown by test/delivery/power-cut.test.ts (the upgrade's cuts).
import { afterEach, expect, test } from 'bun:test'
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { writeFileDurably } from '../../src/platform/durable-file.ts'
import { tempDir } from '../support/hub.ts'

let dir: string | undefined
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

test('a new file holds the whole content with the mode asked, and nothing is left beside it', () => {
  dir = tempDir()
  writeFileDurably(join(dir, 'agent.key'), 'secret\n', 0o600)
  expect(readFileSync(join(dir, 'agent.key'), 'utf8')).toBe('secret\n')
  expect(statSync(join(dir, 'agent.key')).mode & 0o777).toBe(0o600)
  expect(readdirSync(dir)).toEqual(['agent.key'])
})

test('an existing file is replaced whole', () => {
  dir = tempDir()
  writeFileSync(join(dir, 'node-id'), 'old\n')
  writeFileDurably(join(dir, 'node-id'), 'new\n', 0o640)
  expect(readFileSync(join(dir, 'node-id'), 'utf8')).toBe('new\n')
  expect(readdirSync(dir)).toEqual(['node-id'])
})

test('a write that fails says so and leaves the old file as it was, nothing beside it', () => {
  dir = tempDir()
  writeFileSync(join(dir, 'agent.key'), 'old\n')
  // The file beside cannot be written into a folder that is a file.
  expect(() => writeFileDurably(join(dir!, 'agent.key', 'inner'), 'new\n', 0o600)).toThrow()
  expect(readFileSync(join(dir, 'agent.key'), 'utf8')).toBe('old\n')
  expect(readdirSync(dir)).toEqual(['agent.key'])
})
