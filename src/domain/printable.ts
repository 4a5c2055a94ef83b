// Text from the network (a job's metadata, a printer's or an agent's name, an error message) shown
// on a technician's terminal or written to a log. Control characters there could move the cursor,
// rewrite earlier lines, set the window's title or hide text (ANSI escape sequences start with
// ESC), and the bidirectional overrides could show a line in another order than it reads: each is
// shown as an escape instead. Line breaks and tabs stay: the CLI's own output has them.

/** C0 controls but tab and line feed, DEL, C1 controls, and the bidirectional embeddings, overrides and isolates. */
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

const escape = (char: string) => {
  const code = char.charCodeAt(0)
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/** The same, and line breaks and tabs too: for one value in a line (a table's cell), which must not start another. */
const UNPRINTABLE_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

function replaced(text: string, pattern: RegExp): string {
  pattern.lastIndex = 0
  return pattern.test(text) ? text.replace(pattern, escape) : text
}

/** `text` with every character that acts on a terminal instead of showing written as \xNN or \uNNNN. */
export function printable(text: string): string {
  return replaced(text, UNPRINTABLE)
}

/** One value within a line: as printable, and its line breaks and tabs escaped too. */
export function printableInLine(text: string): string {
  return replaced(text, UNPRINTABLE_IN_LINE)
}
