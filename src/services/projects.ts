// Projects and their API keys as every edge makes and reads them (the admin API, the CLI, the public
// API's authentication): a project made with a name, a key made with scopes (its secret shown once,
// only its hash kept), a key revoked at once. Each change is written to the audit log with it.
// Outcomes are values; each edge says them in its own words.
import type { ApiKey, Project } from '../domain/records.ts'
import { type ApiKeyScope, isApiKeyScope } from '../protocol/api-key.ts'
import { validate } from '../protocol/rules.ts'
import { shortString } from '../protocol/values.ts'
import type { UnitRunner } from '../storage/repositories.ts'
import type { Unit } from '../storage/unit.ts'
import type { Actor } from './actor.ts'
import { recordedChange } from './audit.ts'

export type CreateProjectOutcome = { kind: 'created'; project: Project } | { kind: 'invalid'; message: string }

export type CreateKeyOutcome =
  | { kind: 'created'; key: ApiKey; secret: string }
  | { kind: 'unknown_project' }
  /** A scope no key has (`scope`), or none at all. */
  | { kind: 'invalid'; scope: string | undefined }

export type RevokeKeyOutcome =
  | { kind: 'revoked'; key: ApiKey }
  /** Revoked before: it stays revoked since then. */
  | { kind: 'already_revoked'; key: ApiKey }
  | { kind: 'unknown' }

/** What a new key is made with: its scopes (at least one; each once) and a label for people. */
export interface NewKey {
  scopes: readonly string[]
  name: string | null
}

export class ProjectService {
  constructor(private readonly units: UnitRunner) {}

  list(): Promise<Project[]> {
    return this.units.read((db) => db.projects.list())
  }

  get(id: string): Promise<Project | undefined> {
    return this.units.read((db) => db.projects.get(id))
  }

  /** A project, named as given without the spaces around it (1 to 256 characters). */
  async create(actor: Actor, name: string): Promise<CreateProjectOutcome> {
    const trimmed = name.trim()
    const checked = validate(shortString, trimmed)
    if (!checked.ok) return { kind: 'invalid', message: checked.issues[0]!.message }
    return this.units.write(function* (db): Unit<CreateProjectOutcome> {
      const project = yield* db.projects.create(trimmed)
      yield* recordedChange(db, { actor, action: 'projects.create', target: project.name })
      return { kind: 'created', project }
    })
  }
}

export class KeyService {
  constructor(private readonly units: UnitRunner) {}

  /** A project's keys (never their secrets). */
  list(projectId: string): Promise<ApiKey[]> {
    return this.units.read((db) => db.apiKeys.list(projectId))
  }

  get(id: string): Promise<ApiKey | undefined> {
    return this.units.read((db) => db.apiKeys.get(id))
  }

  /** The active key of this secret, its use recorded; undefined for a malformed, unknown or revoked one. */
  use(secret: string): Promise<ApiKey | undefined> {
    return this.units.read((db) => db.apiKeys.use(secret))
  }

  /** A new key of the project; its secret is in this answer only. */
  async create(actor: Actor, projectId: string, { scopes, name }: NewKey): Promise<CreateKeyOutcome> {
    const unknown = scopes.find((scope) => !isApiKeyScope(scope))
    if (unknown !== undefined || scopes.length === 0) return { kind: 'invalid', scope: unknown }
    return this.units.write(function* (db): Unit<CreateKeyOutcome> {
      if (!(yield* db.projects.get(projectId))) return { kind: 'unknown_project' }
      const made = yield* db.apiKeys.create(projectId, scopes as ApiKeyScope[], name)
      yield* recordedChange(db, { actor, action: 'keys.create', target: projectId })
      return { kind: 'created', ...made }
    })
  }

  /** Revokes a key at once: applications using it are refused from their next request. */
  revoke(actor: Actor, keyId: string): Promise<RevokeKeyOutcome> {
    return this.units.write(function* (db): Unit<RevokeKeyOutcome> {
      const key = yield* db.apiKeys.get(keyId)
      if (!key) return { kind: 'unknown' }
      if (key.revokedAt !== null) return { kind: 'already_revoked', key }
      yield* db.apiKeys.revoke(key.id)
      yield* recordedChange(db, { actor, action: 'keys.revoke', target: key.id })
      return { kind: 'revoked', key: (yield* db.apiKeys.get(key.id))! }
    })
  }
}
