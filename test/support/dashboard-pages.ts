// The dashboard's pages by their paths, as the browser code lists them (read from its source: the
// browser modules run only in a browser).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const PAGES_DIR = join(import.meta.dir, '..', '..', 'src/dashboard/browser/pages')

export const PAGES_PATHS: string[] = readFileSync(join(PAGES_DIR, 'index.ts'), 'utf8')
  .match(/PAGES: Page\[\] = \[([^\]]+)\]/)![1]!
  .split(',')
  .map((name) => name.trim())
  // The list as the formatter writes it, one page a line with a trailing comma.
  .filter((name) => name !== '')
  .map((name) => {
    const file = readFileSync(join(PAGES_DIR, `${name.replace(/Page$/, '')}.ts`), 'utf8')
    return /\n  path: '([^']+)'/.exec(file)![1]!
  })
