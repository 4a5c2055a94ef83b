// The cluster store's URL: only PostgreSQL's, with a host and a database, bounded; and shown without its password.
import { describe, expect, test } from 'bun:test'
import { parseStoreUrl, shownStoreUrl } from '../../src/domain/store-url.ts'

describe("the cluster store's URL", () => {
  test('postgres:// and postgresql:// with a host and a database are taken as given', () => {
    for (const url of [
      'postgres://hub:pw@db.example:5432/printhub',
      'postgresql://hub@10.0.0.5/printhub?sslmode=require',
    ])
      expect(parseStoreUrl(url)).toEqual({ ok: true, url })
  })

  test('anything else is refused in words that never repeat the URL', () => {
    const refused = (text: string) => {
      const parsed = parseStoreUrl(text)
      expect(parsed.ok).toBe(false)
      if (parsed.ok) return ''
      expect(parsed.message).not.toContain('s3cret')
      return parsed.message
    }
    expect(refused('not a url s3cret')).toStartWith('is not a URL')
    expect(refused('mysql://root:s3cret@db/x')).toBe('is a mysql URL: give a postgres:// one')
    expect(refused('postgres://u:s3cret@db')).toBe('names no database: end it with /DATABASE')
    expect(refused('postgres:///printhub')).toStartWith('names no host')
    expect(refused(`postgres://u:s3cret@db/${'x'.repeat(3000)}`)).toBe('is longer than 2048 characters')
  })

  test('shown with its password as ***, whatever characters the password has', () => {
    expect(shownStoreUrl('postgres://hub:s%40cr%2Fet@db:5432/printhub')).toBe('postgres://hub:***@db:5432/printhub')
    expect(shownStoreUrl('postgres://hub@db/printhub')).toBe('postgres://hub@db/printhub')
    expect(shownStoreUrl('::not a url s3cret')).toBe('(a URL that cannot be read)')
  })
})
