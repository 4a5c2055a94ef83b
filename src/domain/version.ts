// Which printhub this is: the package version, and the git commit a compiled binary was built from.
import packageJson from '../../package.json'

export const VERSION: string = packageJson.version

/** Stamped into a compiled binary by `bun run build` (scripts/build.ts). */
declare const PRINTHUB_BUILD_COMMIT: string | undefined
/** The git commit a binary was built from; `source` when run from a checkout. */
export const BUILD_COMMIT: string = typeof PRINTHUB_BUILD_COMMIT === 'string' ? PRINTHUB_BUILD_COMMIT : 'source'
