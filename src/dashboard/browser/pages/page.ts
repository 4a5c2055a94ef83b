// What every page of the dashboard is, and the pieces pages are built from: a live list, a form, a
// button that runs an action, a heading.
import type { AdminRole } from '../../../protocol/admin-api.ts'
import { errorBox, formValues, h, showError } from '../dom.ts'

export interface Page {
  path: string
  title: string
  /** The least role that sees the page (the admin API enforces the same). */
  role: AdminRole
  /** On a phone, its link stays in the bar; the others are one tap away, in the menu. */
  primary?: boolean
  /** `params`: the address's parts after the page's path; `query`: what follows `?` in it (a list's filters). */
  render(
    main: HTMLElement,
    params: string[],
    overview: unknown,
    query: URLSearchParams,
  ): { refresh: (overview: unknown) => void; stop: () => void }
}

/**
 * A page's lists, loaded now and again on every change (at most one load at a time). `load` asks
 * `changed(data)` before drawing: what did not change is not drawn again, so a button being
 * pressed or a control with the keyboard's focus is never swapped out from under the user.
 */
export function live(load: (changed: (data: unknown) => boolean) => Promise<void>, problem: HTMLElement) {
  let shown: string | undefined
  const changed = (data: unknown) => {
    const text = JSON.stringify(data)
    if (text === shown) return false
    shown = text
    return true
  }
  let running = false
  let again = false
  let stopped = false
  const run = async () => {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    running = true
    try {
      await load(changed)
      showError(problem, null)
    } catch (error) {
      showError(problem, error)
    } finally {
      running = false
      if (again) {
        again = false
        void run()
      }
    }
  }
  void run()
  return { refresh: () => void run(), stop: () => void (stopped = true) }
}

/** A form that posts its values with `submit`, shows what went wrong, and is reset when it went right. */
export function form(
  content: (HTMLElement | null)[],
  submitLabel: string,
  submit: (values: Record<string, string>, form: HTMLFormElement) => Promise<void>,
  attributes: Record<string, string> = {},
): HTMLFormElement {
  const error = errorBox()
  const button = h('button', { type: 'submit' }, submitLabel)
  const element = h('form', attributes, ...content, error, h('div', { class: 'actions' }, button))
  element.addEventListener('submit', async (event) => {
    event.preventDefault()
    button.disabled = true
    showError(error, null)
    try {
      await submit(formValues(element), element)
    } catch (problem) {
      showError(error, problem)
    } finally {
      button.disabled = false
    }
  })
  return element
}

/** A button that runs `action`, asking first when `confirmation` is given; a failure shows in `problem`. */
export function action(
  label: string,
  run: () => Promise<unknown>,
  problem: HTMLElement,
  options: { confirmation?: string; danger?: boolean } = {},
): HTMLButtonElement {
  const button = h('button', { type: 'button', class: options.danger ? 'danger' : 'secondary' }, label)
  button.addEventListener('click', async () => {
    if (options.confirmation && !confirm(options.confirmation)) return
    button.disabled = true
    showError(problem, null)
    try {
      await run()
    } catch (error) {
      showError(problem, error)
    } finally {
      button.disabled = false
    }
  })
  return button
}

export function heading(title: string, intro?: string): HTMLElement[] {
  const nodes: HTMLElement[] = [h('h1', {}, title)]
  if (intro) nodes.push(h('p', { class: 'intro' }, intro))
  return nodes
}
