// A backup to download, for technicians: made fresh (one at a time), sent as a file with the name
// the hub gives its backups and its exact length.
import type { AdminOperation } from './contract.ts'

/** When a backup is being made already, the download is asked for again after this. */
export const BACKUP_BUSY_RETRY_MS = 10_000

export const backupOperations: AdminOperation[] = [
  {
    method: 'GET',
    path: '/backup',
    operationId: 'downloadBackup',
    summary:
      'A fresh backup of the hub as a download (printhub-backup-SERVERNAME-YYYYMMDD-HHMM.phbackup); ' +
      'one at a time: 429 while one is being made; 409 on a node of a cluster, whose data PostgreSQL backs up',
    role: 'technician',
    answers: {
      200: {
        description: 'The backup, with its exact Content-Length',
        mediaType: 'application/octet-stream',
        headers: { 'content-disposition': 'attachment; filename="printhub-backup-….phbackup"' },
      },
    },
    errors: [409, 429, 500],
  },
]
