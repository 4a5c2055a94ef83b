// The printer routes of a project: its printers and their state.
import {
  type ProjectPrinter,
  projectPrinterResponseRule,
  projectPrintersResponseRule,
} from '../protocol/project-printer.ts'
import type { Connection } from './connection.ts'
import type { RequestOptions } from './request.ts'

/** The project's printers and their state (scope printers:read). */
export class PrintersApi {
  readonly #connection: Connection

  private constructor(connection: Connection) {
    this.#connection = connection
  }

  /** @internal Made by PrintHubClient only: applications reach it as a client's property. */
  static over(connection: Connection): PrintersApi {
    return new this(connection)
  }

  async list(options: RequestOptions = {}): Promise<ProjectPrinter[]> {
    return (
      await this.#connection.send({
        method: 'GET',
        path: this.#connection.projectPath('printers'),
        authenticated: true,
        retryable: true,
        contract: projectPrintersResponseRule,
        signal: options.signal,
      })
    ).printers
  }

  /** One printer, by its record ID or its name. */
  async get(printerId: string, options: RequestOptions = {}): Promise<ProjectPrinter> {
    const path = `${this.#connection.projectPath('printers')}/${encodeURIComponent(printerId)}`
    return (
      await this.#connection.send({
        method: 'GET',
        path,
        authenticated: true,
        retryable: true,
        contract: projectPrinterResponseRule,
        signal: options.signal,
      })
    ).printer
  }
}
