// What a job's pages say of it in the page's language: a failure with what to do, and the
// application's own words (its metadata).
import type { FailureWords } from '../../../protocol/messages/en.ts'
import { t } from '../config.ts'
import { h } from '../dom.ts'

export /** A failure in the page's language, with what to do; its code stays beside it for technicians. */
function failureWords(code: string, message: string | null): HTMLElement {
  const words = (t.failures as Record<string, FailureWords>)[code]
  return h(
    'span',
    { class: 'failure', title: message ?? '' },
    words ? `${words.say}${words.do ? ` ${words.do}` : ''} ` : '',
    h('code', { class: 'code' }, code),
  )
}

/** The application's own words of a job, as a list of entries: its metadata. */
export const metadataList = (metadata: Record<string, string>) =>
  Object.entries(metadata).map(([k, v]) => h('div', {}, h('code', {}, k), ' ', v))
