// One's own account, for every role: the password, the browsers signed in (sign out one, or every
// other), and admin tokens for scripts (each carries the account's role).
import type { AdminSessionView, AdminTokenView as AdminToken } from '../../../protocol/admin/session.ts'
import { api } from '../api.ts'
import { account, t } from '../config.ts'
import { announce, empty, errorBox, field, fill, h, replace, secretBox, time } from '../dom.ts'
import { action, form, heading, live, type Page } from './page.ts'

export const mePage: Page = {
  path: 'me',
  title: 'Your account',
  role: 'staff',
  render(main) {
    const problem = errorBox()
    const sessionsArea = h('section', { class: 'card' })
    const tokensArea = h('section', { class: 'card' })
    const tokenSecret = h('div', {})
    const password = form(
      [
        field(
          t.me.currentPassword,
          h('input', { type: 'password', name: 'currentPassword', required: true, autocomplete: 'current-password' }),
        ),
        field(
          t.me.newPassword,
          h('input', {
            type: 'password',
            name: 'newPassword',
            required: true,
            minlength: '10',
            autocomplete: 'new-password',
          }),
          t.me.newPasswordHint,
        ),
      ],
      t.me.changePassword,
      async (values, element) => {
        await api('PUT', '/password', values)
        element.reset()
        announce(t.me.passwordChanged)
      },
      { 'aria-label': t.me.changePassword },
    )
    const tokenForm = form(
      [field(t.me.tokenName, h('input', { name: 'name', required: true, placeholder: 'backup script' }))],
      t.me.createToken,
      async (values, element) => {
        const { secret } = await api<{ secret: string }>('POST', '/tokens', { name: values.name })
        element.reset()
        replace(tokenSecret, secretBox(t.me.token, secret))
        view.refresh()
      },
    )
    replace(
      main,
      ...heading(t.pages.me, fill(t.me.intro, { name: account.name, role: account.role })),
      problem,
      h('section', { class: 'card' }, h('h2', {}, t.me.password), password),
      sessionsArea,
      tokensArea,
    )
    const load = async (changed: (data: unknown) => boolean) => {
      const [{ sessions }, { tokens }] = await Promise.all([
        api<{ sessions: AdminSessionView[] }>('GET', '/sessions'),
        api<{ tokens: AdminToken[] }>('GET', '/tokens'),
      ])
      // A new token's secret is shown until the page is left, so a new token always draws.
      if (!changed([sessions, tokens])) return
      replace(
        sessionsArea,
        h('h2', {}, t.me.browsers),
        h(
          'ul',
          { class: 'plain' },
          ...sessions.map((s) =>
            h(
              'li',
              { class: 'row spread' },
              h(
                'span',
                {},
                fill(t.me.browser, {
                  agent: s.userAgent.slice(0, 60) || t.me.unknownBrowser,
                  address: s.address,
                  since: time(s.createdAt),
                }),
                s.current ? h('strong', {}, ` ${t.me.thisOne}`) : null,
              ),
              s.current ? null : action(t.me.signOut, () => api('POST', `/sessions/${s.id}/revoke`), problem),
            ),
          ),
        ),
        sessions.some((s) => !s.current)
          ? action(t.me.signOutOthers, () => api('POST', '/sessions/revoke-others'), problem, {
              danger: true,
              confirmation: t.me.signOutOthersAsk,
            })
          : null,
      )
      replace(
        tokensArea,
        h('h2', {}, t.me.tokens),
        h('p', { class: 'intro' }, t.me.tokensIntro),
        tokenSecret,
        tokens.length === 0
          ? empty(t.me.noTokens)
          : h(
              'ul',
              { class: 'plain' },
              ...tokens.map((token) =>
                h(
                  'li',
                  { class: 'row spread' },
                  h(
                    'span',
                    {},
                    h('code', {}, `${token.tokenPrefix}…`),
                    ' ' +
                      fill(t.me.tokenUse, {
                        name: token.name,
                        used: token.lastUsedAt ? time(token.lastUsedAt) : t.me.never,
                      }),
                  ),
                  token.revokedAt
                    ? h('span', { class: 'badge muted' }, t.me.revoked)
                    : action(t.me.revoke, () => api('POST', `/tokens/${token.id}/revoke`), problem, {
                        danger: true,
                        confirmation: fill(t.me.revokeAsk, { name: token.name }),
                      }),
                ),
              ),
            ),
        tokenForm,
      )
    }
    const view = live(load, problem)
    return view
  },
}
