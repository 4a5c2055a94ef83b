// Accounts (owners only): who may sign in, with which role; adding one, changing its role,
// disabling it at once (its sessions end, its tokens stop working) and enabling it again.
import type { AdminRole } from '../../../protocol/admin-api.ts'
import type { User } from '../../../store/users.ts'
import { api } from '../api.ts'
import { config } from '../config.ts'
import { announce, empty, errorBox, field, h, replace, select, showError, time } from '../dom.ts'
import { action, form, heading, live, type Page } from './page.ts'

const ROLE_WORDS: Record<AdminRole, string> = {
  owner: 'Owner: everything, accounts too',
  technician: 'Technician: printers, agents, keys, settings',
  staff: 'Staff: printers and tickets; cancel and reprint',
}

export const usersPage: Page = {
  path: 'users',
  title: 'Accounts',
  role: 'owner',
  render(main) {
    const problem = errorBox()
    const list = h('div', {})
    const roles = () => config.roles.map((role): [string, string] => [role, ROLE_WORDS[role]])
    const create = form(
      [
        field('Name', h('input', { name: 'name', required: true, maxlength: '64', autocomplete: 'off' })),
        field('Role', select('role', roles(), 'staff')),
        field('Password', h('input', { type: 'password', name: 'password', required: true, minlength: '10', autocomplete: 'new-password' }), 'At least 10 characters; tell it to the person, who can change it after signing in.'),
      ],
      'Add account',
      async (values, element) => {
        await api('POST', '/users', { name: values.name, role: values.role, password: values.password })
        element.reset()
        announce(`Added ${values.name}`)
        view.refresh()
      },
      { 'aria-label': 'Add an account' },
    )
    replace(main, ...heading('Accounts', 'Each person signs in with their own name and password; what they may do follows their role. Every change is in the audit log.'), problem, list, h('section', { class: 'card' }, h('h2', {}, 'New account'), create))
    const load = async (changed: (data: unknown) => boolean) => {
      const { users } = await api<{ users: User[] }>('GET', '/users')
      if (!changed(users)) return
      replace(
        list,
        users.length === 0
          ? empty('No accounts.')
          : h(
              'div',
              { class: 'table-wrap', tabindex: '0' },
              h(
                'table',
                {},
                h('caption', { class: 'visually-hidden' }, 'Accounts'),
                h('thead', {}, h('tr', {}, ...['Name', 'Role', 'State', 'Since', ''].map((t) => h('th', { scope: 'col' }, t)))),
                h(
                  'tbody',
                  {},
                  ...users.map((user) => {
                    const role = select('role', roles(), user.role, { 'aria-label': `Role of ${user.name}` })
                    role.addEventListener('change', () => void api('PATCH', `/users/${user.id}`, { role: role.value }).then(() => view.refresh(), (error: Error) => showError(problem, error.message)))
                    return h(
                      'tr',
                      { 'data-user': user.name },
                      h('td', {}, user.name),
                      h('td', {}, role),
                      h('td', {}, h('span', { class: user.disabled ? 'badge bad' : 'badge good' }, user.disabled ? 'Disabled' : 'Active')),
                      h('td', {}, time(user.createdAt)),
                      h(
                        'td',
                        {},
                        user.disabled
                          ? action('Enable', () => api('PATCH', `/users/${user.id}`, { disabled: false }).then(() => view.refresh()), problem)
                          : action('Disable', () => api('PATCH', `/users/${user.id}`, { disabled: true }).then(() => view.refresh()), problem, { danger: true, confirmation: `Disable ${user.name}? They are signed out at once, and their admin tokens stop working.` }),
                      ),
                    )
                  }),
                ),
              ),
            ),
      )
    }
    const view = live(load, problem)
    return view
  },
}
