// Accounts (owners only): who may sign in, with which role; adding one, changing its role,
// disabling it at once (its sessions end, its tokens stop working) and enabling it again.
import type { AdminRole } from '../../../protocol/admin-api.ts'
import type { AdminUser as User } from '../../../protocol/admin/users.ts'
import { api } from '../api.ts'
import { config, t } from '../config.ts'
import { announce, empty, errorBox, field, fill, h, replace, select, showError, time } from '../dom.ts'
import { action, form, heading, live, type Page } from './page.ts'

const ROLE_WORDS: Record<AdminRole, string> = {
  owner: t.users.owner,
  technician: t.users.technician,
  staff: t.users.staff,
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
        field(t.users.name, h('input', { name: 'name', required: true, maxlength: '64', autocomplete: 'off' })),
        field(t.users.role, select('role', roles(), 'staff')),
        field(
          t.users.password,
          h('input', {
            type: 'password',
            name: 'password',
            required: true,
            minlength: '10',
            autocomplete: 'new-password',
          }),
          t.users.passwordHint,
        ),
      ],
      t.users.add,
      async (values, element) => {
        await api('POST', '/users', { name: values.name, role: values.role, password: values.password })
        element.reset()
        announce(fill(t.users.added, { name: values.name! }))
        view.refresh()
      },
      { 'aria-label': t.users.addLabel },
    )
    replace(
      main,
      ...heading(t.pages.users, t.users.intro),
      problem,
      list,
      h('section', { class: 'card' }, h('h2', {}, t.users.newTitle), create),
    )
    const load = async (changed: (data: unknown) => boolean) => {
      const { users } = await api<{ users: User[] }>('GET', '/users')
      if (!changed(users)) return
      replace(
        list,
        users.length === 0
          ? empty(t.users.none)
          : h(
              'div',
              { class: 'table-wrap', tabindex: '0' },
              h(
                'table',
                {},
                h('caption', { class: 'visually-hidden' }, t.pages.users),
                h(
                  'thead',
                  {},
                  h(
                    'tr',
                    {},
                    ...[t.users.name, t.users.role, t.users.state, t.users.since, ''].map((text) =>
                      h('th', { scope: 'col' }, text),
                    ),
                  ),
                ),
                h(
                  'tbody',
                  {},
                  ...users.map((user) => {
                    const role = select('role', roles(), user.role, {
                      'aria-label': fill(t.users.roleOf, { name: user.name }),
                    })
                    role.addEventListener(
                      'change',
                      () =>
                        void api('PATCH', `/users/${user.id}`, { role: role.value }).then(
                          () => view.refresh(),
                          (error: unknown) => showError(problem, error),
                        ),
                    )
                    return h(
                      'tr',
                      { 'data-user': user.name },
                      h('td', {}, user.name),
                      h('td', {}, role),
                      h(
                        'td',
                        {},
                        h(
                          'span',
                          { class: user.disabled ? 'badge bad' : 'badge good' },
                          user.disabled ? t.users.disabled : t.users.active,
                        ),
                      ),
                      h('td', {}, time(user.createdAt)),
                      h(
                        'td',
                        {},
                        user.disabled
                          ? action(
                              t.users.enable,
                              () => api('PATCH', `/users/${user.id}`, { disabled: false }).then(() => view.refresh()),
                              problem,
                            )
                          : action(
                              t.users.disable,
                              () => api('PATCH', `/users/${user.id}`, { disabled: true }).then(() => view.refresh()),
                              problem,
                              { danger: true, confirmation: fill(t.users.disableAsk, { name: user.name }) },
                            ),
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
