// The services over a data directory's store, for the CLI: opened for one command and closed when
// its work is done, as the running hub would change the same data (through the same operations).
import { MAX_OPEN_JOBS } from '../domain/settings.ts'
import { dataDirInUse } from '../platform/data-dir-lock.ts'
import { HubServices, NotOnPostgresError } from '../services/hub-services.ts'
import { MIGRATIONS } from '../store/migrations.ts'
import { Store } from '../store/store.ts'
import { ConfigError } from './config.ts'
import { openPostgresStore } from './postgres-store.ts'

/**
 * The signal a running hub takes as a request to commit its batch now (hub/start.ts): a CLI command beside it then
 * reads what the hub has answered, and writes without waiting for the batch's end.
 */
export const COMMIT_REQUEST_SIGNAL = 'SIGUSR2'

/** The running hub takes commit requests (`commit` runs on each) until the returned function is called. */
export function takeCommitRequests(commit: () => void): () => void {
  const take = () => {
    try {
      commit()
    } catch {
      // Said by the store's log; the batch is committed at its end.
    }
  }
  process.on(COMMIT_REQUEST_SIGNAL, take)
  return () => process.off(COMMIT_REQUEST_SIGNAL, take)
}

/**
 * Opens the data directory's store for a command beside the hub, caught up with a running hub's batch (asked by signal
 * when one is open; a hub that cannot be signalled, or none, is waited for as SQLite waits).
 */
function openBeside(dataDir: string, create: boolean): Store {
  const store = Store.open({ dataDir, create, maxOpenJobsPerProject: MAX_OPEN_JOBS.default })
  try {
    store.catchUp(() => {
      const holder = dataDirInUse(dataDir)?.holder
      if (holder?.role !== 'serve') return
      try {
        process.kill(holder.pid, COMMIT_REQUEST_SIGNAL)
      } catch {
        // Not ours to signal (another user's hub): SQLite's wait for the lock is all there is.
      }
    })
  } catch (error) {
    store.close()
    throw error
  }
  return store
}

/** The schema version of the hub's database this printhub writes. */
export const STORE_SCHEMA_VERSION: number = MIGRATIONS.at(-1)!.version

export interface OpenServices {
  dataDir: string
  /** The cluster's PostgreSQL database (a postgres:// URL), when the data is kept there, not in the data directory. */
  storeUrl?: string | undefined
  /** Create the data directory and database when missing (init); otherwise refuse (NoDatabaseError). */
  create?: boolean
}

/**
 * Like withHubServices, for a data directory that may have no hub database (an agent's, or none yet): then `work` is
 * not run (undefined). For what is noted of a hub's data when there is one (a backup made of it).
 */
export async function withExistingHubServices<T>(
  dataDir: string,
  work: (services: HubServices) => T,
): Promise<Awaited<T> | undefined> {
  let store: Store
  try {
    store = openBeside(dataDir, false)
  } catch {
    return undefined
  }
  try {
    return await work(new HubServices(store))
  } finally {
    store.close()
  }
}

/**
 * Opens the cluster's store, runs `work` with its services, and closes it once `work` is done. What is not yet written
 * for both stores says so in words, and the command ends with it (docs/cluster.md says what runs on PostgreSQL).
 */
async function withPostgresServices<T>(storeUrl: string, work: (services: HubServices) => T): Promise<Awaited<T>> {
  const store = await openPostgresStore(storeUrl)
  try {
    return await work(new HubServices(undefined, { units: store }))
  } catch (error) {
    throw error instanceof NotOnPostgresError ? new ConfigError(error.message) : error
  } finally {
    await store.close()
  }
}

/**
 * Opens the store of the data directory (or the cluster's, with `storeUrl`), runs `work` with its services, and
 * closes it (once async work is done).
 */
export function withHubServices<T>(
  { dataDir, create = false, storeUrl }: OpenServices,
  work: (services: HubServices) => T,
): T {
  if (storeUrl !== undefined) return withPostgresServices(storeUrl, work) as T
  const store = openBeside(dataDir, create)
  let result: T
  try {
    result = work(new HubServices(store))
  } catch (error) {
    store.close()
    throw error
  }
  // Work that goes on asynchronously keeps the store open until it is done.
  if (result instanceof Promise) return result.finally(() => store.close()) as T
  store.close()
  return result
}
