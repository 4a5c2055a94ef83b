// A backup to download: made fresh (one at a time), sent as a file with the name the hub gives
// its backups, and removed from the hub's disk once sent (or once the download stopped).
import { open, rm } from 'node:fs/promises'
import { basename } from 'node:path'
import { ApiError, rateLimited } from '../../http/errors.ts'
import type { AdminContext } from '../context.ts'
import { remoteAddress } from '../../http/failure-rate-limit.ts'
import { adminRouter, audited, TECHNICIAN } from '../router.ts'

/** How much of the archive is read at a time while it is sent. */
const CHUNK_BYTES = 256 * 1024
/** When a backup is being made already, the download is asked for again after this. */
const BUSY_RETRY_MS = 10_000

/** The file's bytes as a stream; the file is removed when the stream ends, however it ends. */
async function sendAndRemove(path: string): Promise<ReadableStream<Uint8Array>> {
  const file = await open(path, 'r')
  let done = false
  const finish = async () => {
    if (done) return
    done = true
    await file.close().catch(() => {})
    await rm(path, { force: true })
  }
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const buffer = new Uint8Array(CHUNK_BYTES)
        const { bytesRead } = await file.read(buffer, 0, CHUNK_BYTES, null)
        if (bytesRead === 0) {
          await finish()
          controller.close()
        } else controller.enqueue(buffer.subarray(0, bytesRead))
      } catch (error) {
        await finish()
        controller.error(error)
      }
    },
    cancel: finish,
  })
  return body
}

export function backupRoutes(context: AdminContext) {
  return adminRouter(context.store, TECHNICIAN).get('/backup', async ({ request, admin, server }) => {
    const making = context.downloadBackup()
    if (!making) throw rateLimited('rate_limited', 'A backup is being made now; try again in a moment.', BUSY_RETRY_MS)
    const outcome = await making
    if (!outcome.ok) throw new ApiError('server_error', `The backup could not be made: ${outcome.message}`)
    const body = await sendAndRemove(outcome.summary.file)
    const name = basename(outcome.summary.file)
    // A copy of everything leaves the hub: said in the audit log, as a change would be.
    audited(context.store, admin, 'backup.download', name, remoteAddress(request, server))
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
