// The dashboard's accounts, for owners: listed, added with a role and a first password, changed
// (role, disabled, password). The hub always keeps one owner who can sign in.
import { ADMIN_ROLES } from '../admin-api.ts'
import { array, boolean, type Infer, object, oneOf, optional } from '../rules.ts'
import { timestamp } from '../values.ts'
import { type AdminOperation, json, MAX_LISTED, recordId } from './contract.ts'
import { ACCOUNT_BODY_BYTES, accountLanguage, secretText, userName } from './session.ts'

export const newUserRule = object({ name: userName, role: oneOf(ADMIN_ROLES), password: secretText })
export const userChangeRule = object({
  role: optional(oneOf(ADMIN_ROLES)),
  disabled: optional(boolean()),
  password: optional(secretText),
})

/** An account as owners see it. */
export const adminUserRule = object({
  id: recordId,
  name: userName,
  role: oneOf(ADMIN_ROLES),
  language: accountLanguage,
  disabled: boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
})
export type AdminUser = Infer<typeof adminUserRule>

const userAnswer = object({ user: adminUserRule })

export const userOperations: AdminOperation[] = [
  {
    method: 'GET',
    path: '/users',
    operationId: 'listUsers',
    summary: "The hub's accounts",
    role: 'owner',
    answers: { 200: json(object({ users: array(adminUserRule, { max: MAX_LISTED }) }), 'The accounts') },
    errors: [],
  },
  {
    method: 'POST',
    path: '/users',
    operationId: 'addUser',
    summary: 'Add an account with a role and a first password',
    role: 'owner',
    body: { rule: newUserRule, maxBytes: ACCOUNT_BODY_BYTES },
    answers: { 201: json(userAnswer, 'The account') },
    errors: [409],
  },
  {
    method: 'PATCH',
    path: '/users/:id',
    operationId: 'changeUser',
    summary: 'Change an account: its role, disabled or enabled, a new password (which signs it out everywhere)',
    role: 'owner',
    body: { rule: userChangeRule, maxBytes: ACCOUNT_BODY_BYTES },
    answers: { 200: json(userAnswer, 'The account as it is now') },
    errors: [404, 409],
  },
]
