// Every bound of the wire contracts, in one place. Numbers from the OpenPrinter v1 reference and
// the print job service specification; docs link here rather than repeat them.

export const PROTOCOL_VERSION = '1'

/** One normal OpenPrinter frame (and so one print job with its document) at most. */
export const MAX_FRAME_BYTES = 2_097_152
/** One gateway authentication frame, and one pairing request body. */
export const MAX_AUTH_FRAME_BYTES = 16_384

/** A message for people in a frame or an answer: an error's, a failure's, a disconnect's reason. */
export const MAX_MESSAGE_LENGTH = 1_024

export const MAX_SECTIONS = 256
export const MAX_TEXT_LENGTH = 16_384
export const MAX_ROW_SIDE_LENGTH = 4_096
export const MAX_QR_LENGTH = 4_096
/** Byte-mode capacity of the largest QR symbol (version 40) at error correction level M. */
export const MAX_QR_BYTES = 2_331
export const MAX_BARCODE_LENGTH = 256
export const MAX_IMAGE_BASE64_LENGTH = 1_398_104
export const MAX_FEED_LINES = 255

/**
 * What one document may cost to print, in all of its sections: each section's own bounds allow
 * far more together than a receipt ever needs (256 images of 2,048 × 2,048 pixels), and a small
 * job could keep a printer and the hub busy for minutes. A real receipt stays far below each.
 */
export const DOCUMENT_COST_LIMITS = {
  /** Characters of text and rows: about 1,300 lines of 48 columns, 4 m of paper. */
  textCharacters: 65_536,
  /** Pixels of all images as sent (decoded before they are scaled to the paper): 4 megapixels. */
  imagePixels: 4_194_304,
  /** Rows of all images as sent (images are only ever scaled down): about 2 m of paper at 203 dpi. */
  imageRows: 16_384,
  /** QR codes and barcodes. */
  codes: 64,
  /** Lines fed by feed sections. */
  feedLines: 1_024,
} as const

export const MAX_PRINTER_ID_LENGTH = 256
export const MAX_IDEMPOTENCY_KEY_LENGTH = 256
export const MAX_METADATA_ENTRIES = 32
export const MAX_METADATA_KEY_LENGTH = 64
export const MAX_METADATA_VALUE_LENGTH = 1_000

export const EXPIRES_IN_MS = { min: 10_000, max: 2_592_000_000, default: 86_400_000 } as const
export const MAX_ATTEMPTS = { min: 1, max: 10, default: 5 } as const

export const CHALLENGE_TTL_SECONDS = { min: 5, max: 300, default: 30 } as const

/** The job list returns the newest jobs of a project, this many at most. */
export const JOB_LIST_LIMIT = 100
