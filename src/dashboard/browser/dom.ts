// Small helpers for building the dashboard's DOM: elements, times, states, forms.
import type { StateWords } from '../../protocol/messages/en.ts'
import { config, t } from './config.ts'

/**
 * Dates and numbers are written for the browser's own locale when it speaks the page's language (en-GB, de-AT), else
 * for the page's language.
 */
export const LOCALE =
  navigator.language.toLowerCase().split('-')[0] === config.language ? navigator.language : config.language
const decimal = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 1, minimumFractionDigits: 1 })

type Child = Node | string | number | null | undefined | false
type Attributes = Record<string, string | number | boolean | EventListener | null | undefined>

/** An element with attributes (`on…` ones are listeners) and children; falsy children are left out. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue
    if (typeof value === 'function') element.addEventListener(name.slice(2), value)
    else if (value === true) element.setAttribute(name, '')
    else element.setAttribute(name, String(value))
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue
    element.append(child instanceof Node ? child : String(child))
  }
  return element
}

export function replace(parent: Element, ...children: (Child | Child[])[]): void {
  parent.replaceChildren()
  for (const child of children.flat())
    if (child !== null && child !== undefined && child !== false)
      parent.append(child instanceof Node ? child : String(child))
}

/** Says something to screen reader users (a saved form, a copied key). */
export function announce(message: string): void {
  const region = document.getElementById('announce')
  if (region) region.textContent = message
}

/** A catalog text with its `{name}` slots filled. */
export function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (slot, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : slot))
}

export function time(iso: string | null): string {
  if (!iso) return '—'
  return new Date(iso).toLocaleString(LOCALE, { dateStyle: 'short', timeStyle: 'medium' })
}

export function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${decimal.format(ms / 1_000)} s`
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1_000)} s`
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)} h ${Math.floor((ms % 3_600_000) / 60_000)} min`
  return `${Math.floor(ms / 86_400_000)} d ${Math.floor((ms % 86_400_000) / 3_600_000)} h`
}

const STATE_TONES: Record<string, string> = {
  online: 'good',
  COMPLETED: 'good',
  paper_low: 'warn',
  PENDING: 'wait',
  DISPATCHING: 'wait',
  DELIVERED: 'wait',
  PRINTING: 'wait',
  unknown: 'muted',
  CANCELLED: 'muted',
  EXPIRED: 'bad',
}

/**
 * A ticket's or a printer's state as a labelled badge, in the page's language: the word and its sign carry the meaning,
 * the colour only helps.
 */
export function badge(state: string): HTMLElement {
  const words: StateWords | undefined =
    (t.jobStates as Record<string, StateWords>)[state] ?? (t.printerStates as Record<string, StateWords>)[state]
  return h(
    'span',
    { class: `badge ${STATE_TONES[state] ?? 'bad'}`, 'data-state': state, title: state },
    h('span', { class: 'icon', 'aria-hidden': 'true' }, words?.icon ?? '?'),
    ` ${words?.word ?? state}`,
  )
}

/** A labelled form field. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`
  control.id = id
  const hintId = hint ? `${id}-hint` : undefined
  if (hintId) control.setAttribute('aria-describedby', hintId)
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    control,
    hint ? h('small', { id: hintId }, hint) : null,
  )
}

export function select(
  name: string,
  options: [value: string, label: string][],
  selected?: string,
  attributes: Attributes = {},
): HTMLSelectElement {
  return h(
    'select',
    { name, ...attributes },
    ...options.map(([value, label]) => h('option', { value, selected: value === selected }, label)),
  )
}

/** The values of a form's named fields. */
export function formValues(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = {}
  for (const [name, value] of new FormData(form)) if (typeof value === 'string') values[name] = value.trim()
  return values
}

/** A place for a form's error, read out when it appears. */
export function errorBox(): HTMLElement {
  return h('p', { class: 'error', role: 'alert', hidden: true })
}

/**
 * Shows what went wrong in `box` (null: nothing, and hides it); the hub's error code, and its own words when the
 * message is another's, on a details line.
 */
export function showError(box: HTMLElement, problem: unknown): void {
  box.hidden = problem === null || problem === undefined
  if (box.hidden) return box.replaceChildren()
  const message = problem instanceof Error ? problem.message : String(problem)
  const { code, hubSaid } = problem as { code?: string | null; hubSaid?: string | null }
  replace(
    box,
    message,
    code
      ? h('small', { class: 'codes' }, ' ', h('code', {}, code), hubSaid && hubSaid !== message ? ` ${hubSaid}` : null)
      : null,
  )
}

/** A secret shown once, selected for copying, with a copy button. */
export function secretBox(label: string, secret: string): HTMLElement {
  const input = h('input', { readonly: true, value: secret, class: 'secret', 'aria-label': label, spellcheck: 'false' })
  const copy = h('button', { type: 'button', class: 'secondary' }, t.frame.copy)
  copy.addEventListener('click', async () => {
    input.select()
    try {
      await navigator.clipboard.writeText(secret)
    } catch {
      // The clipboard API needs HTTPS; on the LAN over HTTP the older command still copies the selection.
      document.execCommand('copy')
    }
    copy.textContent = t.frame.copied
    announce(fill(t.frame.copiedLabel, { label }))
  })
  return h(
    'div',
    { class: 'secret-box', role: 'status' },
    h('p', {}, h('strong', {}, label), t.frame.shownOnce),
    h('div', { class: 'row' }, input, copy),
  )
}

export function empty(message: string): HTMLElement {
  return h('p', { class: 'empty' }, message)
}
