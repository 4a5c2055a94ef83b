// The idle status watch: what it learns from a printer's own answers, and that it tells nothing
// once stopped (an answer still on its way when the hub stops must not reach a closed store).
import { expect, test } from 'bun:test'
import { served } from '../../src/agent/catalog.ts'
import { StatusWatch } from '../../src/agent/status-watch.ts'
import type { PrinterState } from '../../src/domain/printer-state.ts'
import { DeviceFinder } from '../../src/transports/devices.ts'
import { VirtualPrinters } from '../../src/transports/virtual.ts'
import { waitFor } from '../support/wait.ts'
import { confinementOf } from '../../src/transports/confine.ts'
import { tmpdir } from 'node:os'

/** A printer on TCP that answers each status request only when told to. */
function heldPrinter(answer: number) {
  const sockets: Bun.Socket<undefined>[] = []
  let requests = 0
  let closed = 0
  const server = Bun.listen<undefined>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open: (socket) => void sockets.push(socket),
      data: (_, bytes) => void (requests += bytes.length / 3),
      close: () => void closed++,
    },
  })
  return {
    port: server.port,
    requests: () => requests,
    closed: () => closed,
    answerAll: () => sockets.forEach((s) => s.write(Uint8Array.of(answer, answer, answer))),
    stop: () => server.stop(true),
  }
}

const printer = (port: number) =>
  served({
    id: 'kitchen',
    name: 'Kitchen',
    connection: `tcp://127.0.0.1:${port}`,
    profile: 'epson-tm-t20iii',
    width: 80,
  })

test('tells each change of state it learns from the printer', async () => {
  const held = heldPrinter(0x12)
  const told: [string, PrinterState][] = []
  const watch = new StatusWatch(
    60_000,
    { virtuals: new VirtualPrinters(), devices: new DeviceFinder(), confinement: confinementOf(tmpdir()) },
    (id, state) => void told.push([id, state]),
  )
  try {
    watch.start(
      () => [printer(held.port)],
      () => false,
    )
    await waitFor(() => held.requests() >= 1)
    held.answerAll()
    await waitFor(() => told.length === 1)
    expect(told).toEqual([['kitchen', 'online']])
    expect(watch.stateOf('kitchen')).toBe('online')
    watch.learn('kitchen', 'printer.paper_out')
    expect(watch.of('kitchen')).toBe('offline')
    expect(told.at(-1)).toEqual(['kitchen', 'paper_out'])
  } finally {
    watch.stop()
    held.stop()
  }
})

test('an answer that comes after stop() is not told', async () => {
  const held = heldPrinter(0x12)
  const told: PrinterState[] = []
  const watch = new StatusWatch(
    60_000,
    { virtuals: new VirtualPrinters(), devices: new DeviceFinder(), confinement: confinementOf(tmpdir()) },
    (_, state) => void told.push(state),
  )
  try {
    watch.start(
      () => [printer(held.port)],
      () => false,
    )
    await waitFor(() => held.requests() >= 1)
    watch.stop()
    held.answerAll()
    // The watch read the answers and closed its connection: whatever it would tell, it has.
    await waitFor(() => held.closed() === 1)
    expect(told).toEqual([])
    expect(watch.stateOf('kitchen')).toBeUndefined()
  } finally {
    held.stop()
  }
})
