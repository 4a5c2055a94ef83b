// The dashboard in the browser: signing in with an account (or making the first owner), then the
// pages the account's role may see, chosen by the address's #fragment, kept live by the hub's
// stream of changes.
import { api, ApiProblem, useCsrfToken, watch } from './api.ts'
import type { SessionAnswer } from '../../protocol/admin/session.ts'
import { account, config, roleAllows, t } from './config.ts'
import { errorBox, field, formValues, h, replace, select, showError } from './dom.ts'
import { PAGES } from './pages/index.ts'
import type { Page } from './pages/page.ts'

const root = document.getElementById('root')!

/** A form of the signed-out pages: its heading and words, its fields, its button, and what it does when sent. */
interface AuthForm {
  title: string
  intro: string
  fields: HTMLElement[]
  submitLabel: string
  submit: (values: Record<string, string>) => Promise<void>
}

function authForm({ title, intro, fields, submitLabel, submit }: AuthForm): HTMLElement {
  const error = errorBox()
  const button = h('button', { type: 'submit' }, submitLabel)
  const form = h('form', { class: 'card auth' }, h('h1', {}, title), h('p', {}, intro), ...fields, error, button)
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    button.disabled = true
    showError(error, null)
    try {
      await submit(formValues(form))
    } catch (problem) {
      showError(error, problem)
      button.disabled = false
    }
  })
  return form
}

function password(name: string, autocomplete: string): HTMLInputElement {
  return h('input', {
    type: 'password',
    name,
    required: true,
    autocomplete,
    minlength: name === 'password' && autocomplete === 'new-password' ? 10 : null,
  })
}

async function login(): Promise<void> {
  const { passwordSet } = await api<{ passwordSet: boolean }>('GET', '/login')
  const main = h('main', { id: 'main', class: 'narrow' })
  replace(root, main)
  if (!passwordSet) {
    replace(main, h('div', { class: 'card auth' }, h('h1', {}, 'printhub'), h('p', {}, t.signIn.noAccount)))
    return
  }
  replace(
    main,
    authForm({
      title: t.signIn.title,
      intro: t.signIn.intro,
      fields: [
        field(t.signIn.name, h('input', { name: 'name', autocomplete: 'username', maxlength: '64' })),
        field(t.signIn.password, password('password', 'current-password')),
      ],
      submitLabel: t.signIn.submit,
      submit: async (values) => {
        await api('POST', '/login', { ...(values.name ? { name: values.name } : {}), password: values.password })
        location.assign(`${config.dashboard}/`)
      },
    }),
  )
  main.querySelector('input')?.focus()
}

function setup(): void {
  const token = location.hash.slice(1)
  history.replaceState(null, '', location.pathname)
  const main = h('main', { id: 'main', class: 'narrow' })
  replace(root, main)
  replace(
    main,
    authForm({
      title: t.signIn.setupTitle,
      intro: t.signIn.setupIntro,
      fields: [
        field(
          t.signIn.yourName,
          h('input', { name: 'name', required: true, autocomplete: 'username', maxlength: '64', value: 'admin' }),
        ),
        field(t.signIn.newPassword, password('password', 'new-password')),
        field(t.signIn.repeat, password('repeat', 'new-password')),
      ],
      submitLabel: t.signIn.setupSubmit,
      submit: async (values) => {
        if (values.password !== values.repeat) throw new ApiProblem(400, t.signIn.notSame)
        await api('POST', '/setup', { token, name: values.name, password: values.password })
        location.assign(`${config.dashboard}/`)
      },
    }),
  )
  main.querySelector('input')?.focus()
}

/**
 * On a phone the bar keeps the pages marked primary; the other pages, the language and signing out
 * are one tap away behind this button (a disclosure: it says whether it is open; Escape, or a page
 * chosen, closes it). From 860 px wide it is hidden and everything shows (style.css).
 */
function menuToggle(header: HTMLElement, menu: HTMLElement): { button: HTMLButtonElement; close: () => void } {
  const button = h(
    'button',
    { type: 'button', class: 'menu-button', 'aria-expanded': 'false', 'aria-controls': menu.id },
    h('span', { class: 'icon', 'aria-hidden': 'true' }, '☰'),
    ` ${t.frame.menu}`,
  )
  const set = (open: boolean) => {
    header.classList.toggle('open', open)
    button.setAttribute('aria-expanded', String(open))
  }
  const isOpen = () => button.getAttribute('aria-expanded') === 'true'
  button.addEventListener('click', () => set(!isOpen()))
  // A page chosen closes it, the one shown now too (its address does not change).
  menu.addEventListener('click', (event) => (event.target as Element).closest('a') && set(false))
  header.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !isOpen()) return
    set(false)
    button.focus()
  })
  return { button, close: () => set(false) }
}

async function dashboard(): Promise<void> {
  const session = await api<SessionAnswer>('GET', '/session')
  useCsrfToken(session.csrfToken)
  Object.assign(account, session.user)
  const main = h('main', { id: 'main', tabindex: '-1' })
  const pages = PAGES.filter((page) => roleAllows(session.user.role, page.role))
  const title = (page: Page) => (t.pages as Record<string, string>)[page.path] ?? page.title
  const links = pages.map((page) =>
    h('a', { href: `#/${page.path}`, class: page.primary ? 'primary' : null }, title(page)),
  )
  const signOut = h('button', { type: 'button', class: 'link' }, t.frame.signOut)
  // The account's language: kept with the account, the page comes again in it.
  const language = select('language', Object.entries(config.languages), config.language, {
    'aria-label': t.frame.language,
  })
  language.addEventListener('change', async () => {
    await api('PUT', '/session/language', { language: language.value })
    location.reload()
  })
  signOut.addEventListener('click', async () => {
    await api('POST', '/logout').catch(() => undefined)
    location.assign(`${config.dashboard}/login`)
  })
  const who = h('span', { class: 'who', 'data-role': session.user.role }, `${session.user.name} (${session.user.role})`)
  const menu = h(
    'div',
    { class: 'menu', id: 'menu' },
    h('nav', { 'aria-label': t.frame.navigation }, ...links),
    h('div', { class: 'account' }, who, language, signOut),
  )
  const header = h('header', { class: 'top' }, h('span', { class: 'brand' }, 'printhub'))
  const toggle = menuToggle(header, menu)
  header.append(toggle.button, menu)
  replace(root, header, main)

  let current: { page: Page; refresh: (overview: unknown) => void; stop: () => void } | undefined
  let lastOverview: unknown = null
  const route = (event?: HashChangeEvent) => {
    const [address = '', search = ''] = location.hash.replace(/^#\/?/, '').split('?', 2)
    const [path = '', ...rest] = address.split('/')
    const page = pages.find((p) => p.path === path) ?? pages[0]!
    for (const link of links) {
      if (link.getAttribute('href') === `#/${page.path}`) link.setAttribute('aria-current', 'page')
      else link.removeAttribute('aria-current')
    }
    toggle.close()
    current?.stop()
    replace(main)
    const view = page.render(main, rest.map(decodeURIComponent), lastOverview, new URLSearchParams(search))
    current = { page, ...view }
    document.title = `${title(page)} · printhub`
    // Moving within the dashboard takes the keyboard to the new page; a fresh load starts at the top.
    if (event) main.focus({ preventScroll: true })
  }
  window.addEventListener('hashchange', route)
  route()
  // Changes come at most twice a second; a page asks again only for what it shows.
  watch((overview) => {
    lastOverview = overview
    current?.refresh(overview)
  })
}

const view = location.pathname.replace(/\/$/, '').split('/').pop()
const start = view === 'login' ? login() : view === 'setup' ? Promise.resolve(setup()) : dashboard()
start.catch((problem) =>
  replace(
    root,
    h('main', { id: 'main', class: 'narrow' }, h('p', { class: 'error', role: 'alert' }, (problem as Error).message)),
  ),
)
