// A backup to download: made fresh (one at a time), sent as a file with the name the hub gives
// its backups and its exact length, and gone from the hub's disk as soon as it is being sent.
import { open, rm } from 'node:fs/promises'
import { basename } from 'node:path'
import { ApiError, rateLimited } from '../../http/errors.ts'
import { BACKUP_BUSY_RETRY_MS } from '../../protocol/admin/backup.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, TECHNICIAN } from '../router.ts'

/**
 * How long the hub holds the removed file open for Bun to open it in turn. Bun opens it when it
 * starts the answer, in the same turn of the event loop as the route returns (a timer cannot run
 * before); a margin far beyond that, so that the number of the hub's handle is never reused first.
 */
export const DOWNLOAD_HANDLE_MS = 60_000

/**
 * The file to send, already removed from the hub's disk: its name goes at once, its bytes when the
 * last handle on it closes (the hub's after DOWNLOAD_HANDLE_MS, Bun's when the answer ends, however
 * it ends). Bun sends a file body with `sendfile(2)` and says its exact length (`Content-Length`),
 * which it does not for a stream (Bun 1.4.5 drops a stream's Content-Length and sends it chunked):
 * so Bun is given the removed file by its handle's name in `/proc/self/fd`, which it opens itself.
 */
async function removedFile(path: string): Promise<Blob> {
  const file = await open(path, 'r')
  try {
    await rm(path)
  } catch (error) {
    await file.close().catch(() => {})
    throw error
  }
  setTimeout(() => void file.close().catch(() => {}), DOWNLOAD_HANDLE_MS).unref()
  return Bun.file(`/proc/self/fd/${file.fd}`)
}

export function backupRoutes(context: AdminContext) {
  return adminRouter(context.services, TECHNICIAN).get('/backup', async ({ actor }) => {
    const making = context.downloadBackup()
    if (!making)
      throw rateLimited('rate_limited', 'A backup is being made now; try again in a moment.', BACKUP_BUSY_RETRY_MS)
    const outcome = await making
    if (!outcome.ok) throw new ApiError('server_error', `The backup could not be made: ${outcome.message}`)
    const body = await removedFile(outcome.summary.file)
    const name = basename(outcome.summary.file)
    // A copy of everything leaves the hub: said in the audit log, as a change would be.
    await context.services.audit.backupDownloaded(actor, name)
    return new Response(body, {
      headers: {
        'content-type': 'application/octet-stream',
        'content-disposition': `attachment; filename="${name}"`,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      },
    })
  })
}
