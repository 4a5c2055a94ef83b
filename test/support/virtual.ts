// What a virtual printer printed, read back as the receipt preview shows it.
import { type PrinterPreview, previewFor } from '../../src/preview/preview.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import type { VirtualOutput } from '../../src/transports/virtual.ts'

export function previewOf(output: VirtualOutput): PrinterPreview {
  const profile = findProfile(output.paper.profile)
  if (!profile) throw new RangeError(`no printer profile ${output.paper.profile}`)
  return previewFor(output.bytes, profile, output.paper.width)
}
