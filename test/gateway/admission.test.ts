// The places for connections still authenticating: in all and per address, given back once
// (whoever calls), and given back by themselves after their longest hold, so a connection the
// WebSocket layer never reports closed cannot keep one for ever.
import { expect, test } from 'bun:test'
import { PreAuthAdmission } from '../../src/gateway/admission.ts'
import { waitFor } from '../support/wait.ts'

test('in all and per address; released once however often it is released', () => {
  const admission = new PreAuthAdmission({ total: 3, perAddress: 2, maxHoldMs: 60_000 })
  const a1 = admission.admit('10.0.0.1')!
  admission.admit('10.0.0.1')
  expect(admission.admit('10.0.0.1')).toBeUndefined()
  admission.admit('10.0.0.2')
  expect(admission.admit('10.0.0.3')).toBeUndefined()
  a1.release()
  a1.release()
  expect(admission.pending).toBe(2)
  expect(admission.admit('10.0.0.1')).toBeDefined()
  expect(admission.admit('10.0.0.3')).toBeUndefined()
})

test('a place not given back is given back after the longest hold', async () => {
  const admission = new PreAuthAdmission({ total: 1, perAddress: 1, maxHoldMs: 50 })
  expect(admission.admit('10.0.0.1')).toBeDefined()
  expect(admission.admit('10.0.0.1')).toBeUndefined()
  await waitFor(() => admission.pending === 0)
  expect(admission.admit('10.0.0.1')).toBeDefined()
})
