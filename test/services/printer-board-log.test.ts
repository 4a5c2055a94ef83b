// The printer board's lines on a real store: a fault is a warning, a recovery info, each line names
// the printer; a printer that flaps two thousand times writes a few lines a minute and then how
// many were left out, while another printer's fault still gets through.
import { afterEach, expect, test } from 'bun:test'
import type { PrinterState } from '../../src/domain/printer-state.ts'
import { LIMIT_LINES, LIMIT_WINDOW_MS, Log } from '../../src/platform/log.ts'
import { PrinterBoard } from '../../src/services/printer-board.ts'
import { firstStartedStore, type TestStore } from '../support/fixtures.ts'

const FLAPS = 2_000
let world: TestStore | undefined
afterEach(() => world?.close())

test('faults are warnings, recoveries info; a flapping printer is held to its budget', async () => {
  let clock = Date.parse('2026-11-25T12:00:00.000Z')
  world = await firstStartedStore()
  const { store, printerId } = world
  const builtin = store.agents.builtin()!.id
  const demo = store.printers.get(printerId)!
  const other = store.printers.add({
    projectId: world.projectId,
    remoteId: 'bar',
    name: null,
    connection: 'virtual',
    profile: 'generic-80mm',
    width: 80,
    agentId: builtin,
  })!
  const lines: string[] = []
  const log = new Log(
    { format: 'text', level: 'info', journal: false },
    (line) => lines.push(line),
    () => clock,
  )
  const states = new Map<string, PrinterState>()
  const board = new PrinterBoard(
    store,
    { isConnected: () => true, builtinState: (id) => states.get(id) },
    log.for('printer'),
  )
  const set = (id: string, state: PrinterState) => {
    states.set(id, state)
    board.recordAgent(builtin)
  }

  set(demo.agentPrinterId, 'online')
  set(other.agentPrinterId, 'online')
  set(demo.agentPrinterId, 'paper_out')
  set(demo.agentPrinterId, 'online')
  const named = (line: string, id: string) => line.includes(` printer printer=${id} `)
  expect(lines.filter((line) => named(line, demo.id)).map((line) => line.slice(25))).toEqual([
    `info  printer printer=${demo.id} name=demo agent=${builtin} new -> online`,
    `warn  printer printer=${demo.id} name=demo agent=${builtin} online -> paper_out`,
    `info  printer printer=${demo.id} name=demo agent=${builtin} paper_out -> online`,
  ])

  // Flapping: 2,000 changes within the minute.
  const before = lines.length
  for (let i = 0; i < FLAPS; i++) set(demo.agentPrinterId, i % 2 ? 'online' : 'cover_open')
  set(other.agentPrinterId, 'error')
  const flapped = lines.slice(before).filter((line) => named(line, demo.id))
  expect(flapped).toHaveLength(LIMIT_LINES - 3)
  expect(lines.filter((line) => named(line, other.id)).at(-1)).toEndWith(
    `warn  printer printer=${other.id} name=bar agent=${builtin} online -> error`,
  )
  // Every change is still in the printer's history; only the log holds back.
  expect(store.printerStates.history(builtin, demo.agentPrinterId, 10_000).length).toBeGreaterThanOrEqual(FLAPS)

  // The minute ends: the next change first says how many were left out.
  clock += LIMIT_WINDOW_MS
  set(demo.agentPrinterId, 'paper_low')
  const [summary, next] = lines.slice(-2)
  expect(summary).toMatch(
    new RegExp(
      `warn  printer printer=${demo.id} name=demo agent=${builtin} ` +
        `suppressed=${FLAPS - (LIMIT_LINES - 3)} online -> cover_open$|info  ` +
        `printer printer=${demo.id} name=demo agent=${builtin} ` +
        `suppressed=${FLAPS - (LIMIT_LINES - 3)} cover_open -> online$`,
    ),
  )
  expect(next).toEndWith(`warn  printer printer=${demo.id} name=demo agent=${builtin} online -> paper_low`)
})
