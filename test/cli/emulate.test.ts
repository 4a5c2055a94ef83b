// `printhub emulate` as its own process: it listens, prints each receipt it gets, keeps the files,
// and stops on SIGTERM.
import { afterAll, expect, test } from 'bun:test'
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cli, PRINTHUB, ROOT } from '../support/cli.ts'
import { freePort } from '../support/ports.ts'
import { waitFor } from '../support/wait.ts'

const store = mkdtempSync(join(tmpdir(), 'printhub-emulate-'))
afterAll(() => rmSync(store, { recursive: true, force: true }))

test('prints what it receives, keeps it as files, answers status, stops on SIGTERM', async () => {
  const port = freePort()
  const child = Bun.spawn(
    [...PRINTHUB, 'emulate', '--listen', `tcp://127.0.0.1:${port}`, '--store', store, '--paper', 'near-end', '--json'],
    { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' },
  )
  const lines: string[] = []
  void (async () => {
    const decoder = new TextDecoder()
    let buffered = ''
    for await (const chunk of child.stdout) {
      buffered += decoder.decode(chunk, { stream: true })
      const parts = buffered.split('\n')
      buffered = parts.pop()!
      lines.push(...parts)
    }
  })()
  const listening = JSON.parse(await waitFor(() => lines[0], 10_000))
  expect(listening).toEqual({
    event: 'listening',
    url: `tcp://127.0.0.1:${port}`,
    profile: 'generic-80mm',
    width: 80,
    state: { paper: 'near-end', coverOpen: false, error: false, offline: false },
  })
  const replies: number[] = []
  const socket = await Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: { data: (_s, bytes) => void replies.push(...bytes) },
  })
  socket.write(Uint8Array.of(0x10, 0x04, 0x04, 0x1b, 0x40, ...Buffer.from('Order 42\n')))
  await waitFor(() => replies.length === 1)
  // Paper near its end: bits 2 and 3 of the roll paper status.
  expect(replies).toEqual([0x1e])
  socket.end()
  const receipt = JSON.parse(await waitFor(() => lines[1], 5_000))
  // The status request is answered, not part of the receipt.
  expect(receipt).toEqual({ event: 'receipt', number: 1, bytes: 11, held: false, lost: 0, text: ['Order 42'] })
  expect(readFileSync(join(store, '0001.txt'), 'utf8')).toBe('Order 42\n')
  expect(Array.from(readFileSync(join(store, '0001.bin')))).toEqual([0x1b, 0x40, ...Buffer.from('Order 42\n')])
  expect(existsSync(join(store, '0001.png'))).toBe(true)
  child.kill('SIGTERM')
  expect(await child.exited).toBe(0)
})

test('a serial printer on a pseudo-terminal: the link is where printhub writes, the loss is reported', async () => {
  const link = join(store, 'printer0')
  const child = Bun.spawn(
    [...PRINTHUB, 'emulate', '--serial', link, '--buffer', '8', '--print-rate', '10', '--flow', 'none', '--json'],
    { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' },
  )
  const reader = child.stdout.getReader()
  const decoder = new TextDecoder()
  let text = ''
  const nextLine = async () => {
    while (!text.includes('\n')) text += decoder.decode((await reader.read()).value, { stream: true })
    const [line, ...rest] = text.split('\n')
    text = rest.join('\n')
    return JSON.parse(line!)
  }
  expect(await nextLine()).toMatchObject({ event: 'listening', url: `serial://${link}?baud=115200&flow=none` })
  // A host that writes 21 bytes at once into an 8-byte buffer: 13 are lost.
  const port = openSync(link, 'w')
  writeSync(port, Buffer.from('Table 7\nOrder 12, 2x\n'))
  closeSync(port)
  expect(await nextLine()).toMatchObject({ event: 'receipt', number: 1, bytes: 8, lost: 13, text: ['Table 7'] })
  child.kill('SIGTERM')
  expect(await child.exited).toBe(0)
  expect(existsSync(link)).toBe(false)
})

test('bad options are refused', async () => {
  for (const args of [
    [],
    ['--serial', '/tmp/x', '--listen', 'tcp://127.0.0.1:9100'],
    ['--serial', '/tmp/x', '--baud', 'fast'],
    ['--serial', '/tmp/x', '--flow', 'dtr'],
    ['--listen', 'udp://x:1'],
    ['--listen', 'tcp://127.0.0.1:9100', '--paper', 'wet'],
    ['--listen', 'tcp://127.0.0.1:9100', '--profile', 'nope'],
    ['--listen', 'tcp://127.0.0.1:9100', '--profile', 'generic-58mm'],
  ]) {
    const result = await cli(['emulate', ...args])
    expect([args, result.code]).toEqual([args, 2])
  }
  const taken = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const busy = await cli(['emulate', '--listen', `tcp://127.0.0.1:${taken.port}`])
  taken.stop(true)
  expect(busy.code).toBe(1)
  expect(busy.stderr).toContain(`cannot listen at 127.0.0.1:${taken.port}: another program holds that port`)
})
