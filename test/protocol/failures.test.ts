// The failure codes are one closed family in one spelling, documented once (docs/failure-codes.md
// says exactly what the code says), and what an agent reports is brought into the family.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { API_ERRORS } from '../../src/protocol/api-errors.ts'
import {
  FAILURE_CODES,
  FAILURES,
  FORMER_SPELLINGS,
  failure,
  isFailureCode,
  MAX_FAILURE_MESSAGE_LENGTH,
  reportedFailure,
} from '../../src/protocol/failures.ts'
import { PAIRING_ERROR_CODES } from '../../src/protocol/pairing.ts'

describe('failure codes', () => {
  test('one spelling: area.reason, in snake_case', () => {
    for (const code of FAILURE_CODES) expect(code).toMatch(/^(printer|render|job|agent|spooler)\.[a-z]+(_[a-z]+)*$/)
  })

  test('docs/failure-codes.md lists exactly the family, each with its retryability and meaning', () => {
    const doc = readFileSync(join(import.meta.dir, '../../docs/failure-codes.md'), 'utf8')
    const rows = [...doc.matchAll(/^\| `([a-z._]+)` \| (yes|no) \| (.+) \|$/gm)].map(
      ([, code, retryable, meaning]) => ({ code, retryable: retryable === 'yes', meaning }),
    )
    expect(rows).toEqual(
      FAILURE_CODES.map((code) => ({ code, retryable: FAILURES[code].retryable, meaning: FAILURES[code].meaning })),
    )
  })

  test("docs/failure-codes.md lists every former spelling with today's", () => {
    const doc = readFileSync(join(import.meta.dir, '../../docs/failure-codes.md'), 'utf8')
    const rows = Object.fromEntries(
      [...doc.matchAll(/^\| `([a-z_]+)` \| `([a-z._]+)` \|$/gm)].map(([, former, today]) => [former, today]),
    )
    expect(rows).toEqual({ ...FORMER_SPELLINGS })
  })

  test('former spellings all lead into the family, and none is still in it', () => {
    for (const [former, today] of Object.entries(FORMER_SPELLINGS)) {
      expect(isFailureCode(today)).toBe(true)
      expect(isFailureCode(former)).toBe(false)
    }
  })

  test("a failure's message is bounded; its retryability defaults to the family's", () => {
    expect(failure('printer.paper_out', 'x'.repeat(5_000))).toEqual({
      code: 'printer.paper_out',
      message: 'x'.repeat(MAX_FAILURE_MESSAGE_LENGTH),
      retryable: true,
    })
    expect(failure('printer.unconfirmed', 'it may have printed').retryable).toBe(false)
    expect(failure('printer.unreachable', 'no printer interface', false).retryable).toBe(false)
  })

  test(
    "an agent's report: a known code stays, a former spelling is renamed, " + 'anything else is kept in the message',
    () => {
      expect(reportedFailure({ code: 'spooler.failed', message: 'lp refused it', retryable: false })).toEqual({
        code: 'spooler.failed',
        message: 'lp refused it',
        retryable: false,
      })
      expect(reportedFailure({ code: 'paper_out', message: 'Out of paper.', retryable: true })).toEqual({
        code: 'printer.paper_out',
        message: 'Out of paper.',
        retryable: true,
      })
      expect(reportedFailure({ code: 'acme.jammed', message: 'Jammed.', retryable: true })).toEqual({
        code: 'agent.reported_failure',
        message: 'acme.jammed: Jammed.',
        retryable: true,
      })
      expect(
        reportedFailure({ code: 'acme.jammed', message: 'y'.repeat(2_000), retryable: false }).message,
      ).toHaveLength(MAX_FAILURE_MESSAGE_LENGTH)
      // Not taken from an object's prototype.
      expect(reportedFailure({ code: 'constructor', message: 'm', retryable: true }).code).toBe(
        'agent.reported_failure',
      )
    },
  )
})

describe('API error codes', () => {
  test(
    'each has one status; 409 is conflict, or a refusal that says more (a job ' +
      'no longer cancellable, a document pruned); the pairing codes are 400 as ' +
      'OpenPrinter answers them',
    () => {
      expect(
        Object.entries(API_ERRORS)
          .filter(([, status]) => status === 409)
          .map(([code]) => code),
      ).toEqual(['conflict', 'job_not_cancellable', 'document_pruned'])
      for (const code of PAIRING_ERROR_CODES) expect(API_ERRORS[code]).toBe(400)
      for (const code of Object.keys(API_ERRORS)) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/)
    },
  )
})
