// An agent that floods the hub with printer inventories, against a real hub: each message names
// 512 printers with a new revision. The hub writes the first at once and then at most one a second,
// keeps at most 128 printers of one agent, writes nothing for an inventory that says the same
// again, and ends the session once the agent goes over the pace; the hub answers /health all along.
import { expect, test } from 'bun:test'
import { MAX_AGENT_PRINTERS } from '../../src/dispatcher/inventory-writes.ts'
import { INVENTORY_PACE } from '../../src/gateway/inventory.ts'
import { virtualPrinter } from '../support/fake-agent.ts'
import { expectProtocolError, useGatewayHub } from '../support/gateway-fixtures.ts'
import { waitFor } from '../support/wait.ts'

const { t, pair, online } = useGatewayHub()

const totalChanges = () => t.hub.store.changes()
const storedPrinters = (agentId: string) => t.hub.store.agents.printers().filter((p) => p.agentId === agentId)
const many = (count: number, name = 'Printer') =>
  Array.from({ length: count }, (_, i) => virtualPrinter(`p${i}`, { name: `${name} ${i}` }))

test('a flood of 512-printer inventories: few writes, the session ended, /health answered throughout', async () => {
  const credentials = await pair()
  const agent = await online(credentials)
  await waitFor(() => storedPrinters(credentials.agentId).length === 1)
  const before = totalChanges()
  const healthy: number[] = []
  let flooding = true
  const probe = (async () => {
    while (flooding) healthy.push((await t.request('GET', '/health', { key: null })).status)
  })()
  // Each a new revision with other names: every one would be a change.
  for (let i = 0; i < 200; i++) void agent.inventory(many(512, `Round ${i}`))
  await expectProtocolError(agent)
  flooding = false
  await probe
  // At most one more write (the newest, a second after the first), of 128 rows at most, the old row removed.
  expect(totalChanges() - before).toBeLessThanOrEqual(MAX_AGENT_PRINTERS + 1)
  expect(storedPrinters(credentials.agentId).length).toBeLessThanOrEqual(MAX_AGENT_PRINTERS)
  expect(healthy.length).toBeGreaterThan(0)
  expect(healthy.every((status) => status === 200)).toBe(true)
}, 30_000)

test(`an agent with 512 printers: the hub keeps its first ${MAX_AGENT_PRINTERS}`, async () => {
  const credentials = await pair()
  await online(credentials, many(512))
  await waitFor(() => storedPrinters(credentials.agentId).length === MAX_AGENT_PRINTERS)
  expect(
    storedPrinters(credentials.agentId)
      .map((p) => p.printerId)
      .sort(),
  ).toEqual(
    many(MAX_AGENT_PRINTERS)
      .map((p) => p.id)
      .sort(),
  )
})

test('an inventory that says the same again writes nothing; a printer that changes writes one row', async () => {
  const credentials = await pair()
  const printers = many(10)
  const agent = await online(credentials, printers)
  await waitFor(() => storedPrinters(credentials.agentId).length === 10)
  const stamps = () => new Map(storedPrinters(credentials.agentId).map((p) => [p.printerId, p.updatedAt]))
  const first = stamps()
  await agent.inventory(printers)
  await agent.inventory(printers.map((p, i) => (i === 3 ? { ...p, availability: 'offline' as const } : p)))
  // Frames are handled in order: once the change is stored, the repeat before it was handled too.
  await waitFor(
    () => storedPrinters(credentials.agentId).find((p) => p.printerId === 'p3')?.availability === 'offline',
    5_000,
  )
  const after = stamps()
  expect([...after].filter(([id, at]) => first.get(id) !== at).map(([id]) => id)).toEqual(['p3'])
})

test(`the pace: a burst of ${INVENTORY_PACE.burst}, then one every ${INVENTORY_PACE.everyMs / 1000} s`, async () => {
  const credentials = await pair()
  const printers = many(2)
  const agent = await online(credentials, printers)
  // online() sent one already.
  for (let i = 1; i < INVENTORY_PACE.burst; i++) await agent.inventory(printers)
  await agent.inventory(printers)
  await expectProtocolError(agent)
})

test('the store writes only what changed: the same inventory again writes no row', async () => {
  const credentials = await pair()
  const printers = many(20)
  await online(credentials, printers)
  await waitFor(() => storedPrinters(credentials.agentId).length === 20)
  const before = totalChanges()
  expect(t.hub.store.agents.replacePrinters(credentials.agentId, printers)).toBe(false)
  expect(totalChanges()).toBe(before)
  const fewer = printers.slice(0, 19).map((p, i) => (i === 0 ? { ...p, name: 'Renamed' } : p))
  expect(t.hub.store.agents.replacePrinters(credentials.agentId, fewer)).toBe(true)
  expect(totalChanges() - before).toBe(2)
})
