// The services over a data directory's store, for the CLI: opened for one command and closed when
// its work is done, as the running hub would change the same data (through the same operations).
import { MAX_OPEN_JOBS } from '../domain/settings.ts'
import { HubServices, NotOnPostgresError } from '../services/hub-services.ts'
import { MIGRATIONS } from '../store/migrations.ts'
import { Store } from '../store/store.ts'
import { ConfigError } from './config.ts'
import { openPostgresStore } from './postgres-store.ts'

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
    store = Store.open({ dataDir, create: false, maxOpenJobsPerProject: MAX_OPEN_JOBS.default })
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
  const store = Store.open({ dataDir, create, maxOpenJobsPerProject: MAX_OPEN_JOBS.default })
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
