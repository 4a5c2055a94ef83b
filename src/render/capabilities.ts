// Sections a model cannot do at all, and that are left out rather than degraded: a drawer pulse on
// a pin the model has no connector for, a buzzer on a model without one. One rule, used where the
// document is rendered (the renderer's warnings) and where the job is made (the job's timeline says
// so at once, before it prints).
import type { Section } from '../protocol/document.ts'
import type { PrinterProfile } from '../profiles/profile.ts'

/** Why the model leaves this section out, or undefined when it prints it (perhaps degraded). */
export function leftOut(section: Section, profile: PrinterProfile): string | undefined {
  if (section.type === 'drawer' && !profile.drawer?.pins.includes(section.pin))
    return (
      `the printer model ${profile.id} has no cash drawer connector with pin ` +
      `${section.pin}: the section is left out, the drawer stays shut`
    )
  if (section.type === 'buzzer' && profile.buzzer === 'none')
    return `the printer model ${profile.id} has no buzzer: the section is left out`
  return undefined
}

/** Each section of the document the model leaves out, with its path and why. */
export function sectionsLeftOut(
  sections: readonly Section[],
  profile: PrinterProfile,
): { path: string; message: string }[] {
  return sections.flatMap((section, index) => {
    const why = leftOut(section, profile)
    return why ? [{ path: `sections[${index}]`, message: why }] : []
  })
}
