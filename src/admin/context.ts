import type { ApiContext } from '../api/context.ts'
import type { HubOnTheLan } from '../services/test-page.ts'
import type { DetectedPrinter } from '../transports/detect.ts'
import type { PrinterBoard } from '../services/printer-board.ts'

/** What the admin API works with, beyond what the public API does. */
export interface AdminContext extends ApiContext {
  board: PrinterBoard
  /** When the hub started, in milliseconds since the epoch. */
  startedAt: number
  /** How people on the LAN reach the hub (its name, URL, addresses), on the port it listens on. */
  lan(): HubOnTheLan
  isConnected(agentId: string): boolean
  disconnectAgent(agentId: string, code: string, reason: string): void
  /** Aborted when the hub stops: open event streams end. */
  stopping: AbortSignal
  /** The printers plugged into this machine. */
  detect(): Promise<{ printers: DetectedPrinter[]; usbError: string | null }>
}
