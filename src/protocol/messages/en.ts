// What people read, in English: the states of tickets and printers as people say them, each
// failure in a sentence with what to do about it, and the dashboard's own words. Every language
// is one file of this shape (de.ts); the codes stay visible beside the words, for technicians.
import type { FailureCode } from '../failures.ts'
import type { JobState } from '../job.ts'

/** A state in words, with a sign that says it too (never colour alone). */
export interface StateWords {
  word: string
  icon: string
}

/** A failure in words: what happened, and what a person can do (null: nothing to do by hand). */
export interface FailureWords {
  say: string
  do: string | null
}

/** What is known of a printer, in words, with what to do when it needs someone. */
export interface PrinterWords extends StateWords {
  do: string | null
}

export const en = {
  /** The language's own name, for the choice of language. */
  name: 'English',
  jobStates: {
    PENDING: { word: 'Waiting', icon: '◷' },
    DISPATCHING: { word: 'Sending', icon: '↗' },
    DELIVERED: { word: 'At the printer', icon: '⇥' },
    PRINTING: { word: 'Printing', icon: '▤' },
    COMPLETED: { word: 'Printed', icon: '✓' },
    FAILED: { word: 'Failed', icon: '✗' },
    EXPIRED: { word: 'Expired', icon: '◔' },
    CANCELLED: { word: 'Cancelled', icon: '⊘' },
  } satisfies Record<JobState, StateWords>,
  printerStates: {
    online: { word: 'Ready', icon: '✓', do: null },
    paper_low: { word: 'Paper running low', icon: '!', do: 'Have a new roll ready; it still prints.' },
    paper_out: { word: 'Out of paper', icon: '✗', do: 'Open the cover, put in a new roll; waiting tickets print by themselves.' },
    cover_open: { word: 'Cover open', icon: '✗', do: 'Close the cover firmly; waiting tickets print by themselves.' },
    error: { word: 'Printer error', icon: '✗', do: 'Look for jammed paper or a stuck cutter; switch the printer off and on again.' },
    offline: { word: 'Not reachable', icon: '✗', do: 'Check that the printer is switched on and its cable or network is connected.' },
    unknown: { word: 'Not known', icon: '?', do: null },
  } satisfies Record<string, PrinterWords>,
  failures: {
    'printer.not_found': { say: 'The printer is not set up on its computer.', do: 'Ask a technician to add the printer again.' },
    'printer.invalid_connection': { say: "The printer's connection is set up wrongly.", do: "Ask a technician to check the printer's connection." },
    'printer.unreachable': { say: 'The printer could not be reached.', do: 'Check that the printer is switched on and its cable or network is connected.' },
    'printer.timeout': { say: 'The printer stopped taking the ticket.', do: 'Check the printer for paper or a jam; the ticket is tried again.' },
    'printer.offline': { say: 'The printer is offline.', do: 'Check that the printer is switched on and ready.' },
    'printer.paper_out': { say: 'The printer is out of paper; nothing was printed.', do: 'Open the cover, put in a new roll; the ticket prints by itself.' },
    'printer.cover_open': { say: "The printer's cover is open; nothing was printed.", do: 'Close the cover firmly; the ticket prints by itself.' },
    'printer.error': { say: 'The printer reports an error (paper jam, cutter, or too hot).', do: 'Clear the paper path, let it cool, switch it off and on again.' },
    'printer.failed': { say: 'The printer refused the ticket.', do: null },
    'printer.unconfirmed': { say: 'The printer took the ticket but did not confirm it printed.', do: 'Look at the printer: if the ticket is not there, reprint it.' },
    'render.profile_unknown': { say: "The printer's model is not known to this hub.", do: "Ask a technician to choose the printer's model." },
    'render.width_unsupported': { say: "The ticket is for another paper width than this printer's.", do: null },
    'render.unsupported_character': { say: 'The ticket has a character this printer cannot print.', do: null },
    'render.qr_too_long': { say: 'A QR code on the ticket holds too much.', do: null },
    'render.barcode_unsupported': { say: 'This printer cannot print the barcode on the ticket.', do: null },
    'render.barcode_invalid': { say: 'A barcode on the ticket is not valid.', do: null },
    'render.barcode_too_wide': { say: 'A barcode on the ticket is wider than the paper.', do: null },
    'render.image_invalid': { say: 'A picture on the ticket could not be read.', do: null },
    'render.feature_ignored': { say: 'Part of the ticket was left out: this printer cannot do it.', do: null },
    'job.recovery_uncertain': { say: 'The hub stopped while this ticket was printing: it may have printed.', do: 'Look at the printer: if the ticket is not there, reprint it.' },
    'job.moved': { say: 'Moved to another printer: its own could not print.', do: null },
    'job.expired': { say: 'The ticket was too old to print when a printer could take it.', do: 'If it is still needed, print it again.' },
    'agent.disconnected': { say: "The printer's computer went away before it took the ticket.", do: 'The ticket is tried again by itself.' },
    'agent.ack_timeout': { say: "The printer's computer did not answer in time.", do: 'The ticket is tried again by itself.' },
    'agent.internal_error': { say: "The printer's computer failed while printing: it may have printed.", do: 'Look at the printer: if the ticket is not there, reprint it.' },
    'agent.extension_unsupported': { say: "The printer's computer cannot print part of this ticket (drawer, buzzer).", do: null },
    'agent.reported_failure': { say: "The printer's computer reported a problem.", do: null },
    'printer.disabled': { say: 'The printer is switched off on its computer.', do: 'Ask a technician to enable the printer.' },
    'printer.resolve_failed': { say: "The printer's computer could not find the printer.", do: null },
    'printer.identity_mismatch': { say: "The printer's computer found another printer.", do: "Ask a technician to check the printer's setup." },
    'render.failed': { say: "The printer's computer could not prepare the ticket.", do: null },
    'spooler.failed': { say: "The printer's computer did not take the ticket.", do: 'The ticket is tried again by itself.' },
    'job.invalid_persisted': { say: "The printer's computer lost its copy of the ticket.", do: 'Reprint the ticket.' },
    'job.storage_mismatch': { say: "The printer's computer lost its copy of the ticket.", do: 'Reprint the ticket.' },
  } satisfies Record<FailureCode, FailureWords>,
  /** The steps of a ticket's timeline. */
  timeline: {
    created: 'Created',
    retry: 'Could not print; trying again',
    PENDING: 'Waiting',
    DISPATCHING: 'Sent to the printer',
    DELIVERED: 'At the printer',
    PRINTING: 'Printing',
    COMPLETED: 'Printed',
    FAILED: 'Failed',
    EXPIRED: 'Expired',
    CANCELLED: 'Cancelled',
  } satisfies Record<JobState | 'created' | 'retry', string>,
  /** The dashboard's pages and its frame. */
  pages: {
    overview: 'Overview',
    printers: 'Printers',
    destinations: 'Destinations',
    jobs: 'Jobs',
    projects: 'Projects & keys',
    webhooks: 'Webhooks',
    agents: 'Agents',
    settings: 'Settings',
    users: 'Accounts',
    audit: 'Audit log',
  },
  overview: {
    noPrinters: 'No printers yet. Add one on the Printers page.',
    waiting: '{n} waiting',
    waitingAt: '{n} waiting at {printer}',
    agentAway: 'Agent {agent} is not connected',
    today: 'Today',
    todayCount: '{n} {state} today',
    health: 'Health',
    running: 'Running',
    version: 'Version',
    uptime: 'Uptime',
    address: 'Address',
    lan: 'LAN addresses',
    none: 'none',
    agentsOnline: 'Agents online',
    agentsOf: '{n} of {m}',
  },
  signIn: {
    title: 'Sign in to printhub',
    intro: 'Your name and password (a hub with one account needs only its password).',
    name: 'Name',
    password: 'Password',
    submit: 'Sign in',
    noAccount: 'No account exists yet. Open the setup link the hub printed when it started, or run printhub admin set-password on the hub.',
    setupTitle: 'Set the admin password',
    setupIntro: "You are the hub's first owner: choose your name and password (at least 10 characters). Owners add everyone else's accounts.",
    yourName: 'Your name',
    newPassword: 'New password',
    repeat: 'Repeat it',
    setupSubmit: 'Set password and sign in',
    notSame: 'The two passwords are not the same.',
  },
  jobs: {
    intro: 'Newest first. The list follows what happens, live.',
    filters: 'Filter jobs',
    search: 'Search',
    searchHint: 'An order number, a table: any value the application sent with the ticket, as you type.',
    project: 'Project',
    allProjects: 'All projects',
    printer: 'Printer',
    allPrinters: 'All printers',
    state: 'State',
    allStates: 'All states',
    from: 'Created from',
    before: 'Created before',
    created: 'Created',
    ticket: 'Ticket',
    noMatch: 'No jobs match these filters.',
    none: 'No jobs yet. Applications post them to the API with a project key.',
    more: 'Showing the newest 100; narrow the filters to see older jobs.',
    back: '← All jobs',
    job: 'Job',
    receiptAlt: 'The receipt this job prints',
    idempotencyKey: 'Idempotency key',
    attempts: 'Attempts',
    attemptsOf: '{n} of {max}',
    expires: 'Expires',
    lastError: 'Last error',
    metadata: 'Metadata',
    reprintOf: 'Reprint of',
    reprints: 'Reprinted as',
    fanOut: 'Sent to every printer of {destination}',
    also: 'also',
    cancel: 'Cancel job',
    cancelAsk: 'Cancel this job? It will not print.',
    reprint: 'Reprint',
    reprintAsk: 'Print this ticket again? It prints with a REPRINT banner and the time of the first one.',
    reprinted: 'Reprint created',
    timeline: 'What happened to the job',
    when: 'When',
    step: 'Step',
    attempt: 'Attempt',
    after: 'After',
    error: 'Error',
    receipt: 'Receipt',
    documentGone: 'The document is no longer kept.',
  },
  frame: {
    skip: 'Skip to content',
    signOut: 'Sign out',
    navigation: 'Dashboard',
    language: 'Language',
    codes: 'Code',
  },
}

export type Messages = typeof en
