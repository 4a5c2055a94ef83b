// JPEG to grey levels: libjpeg-turbo (mozjpeg, as WebAssembly from `@jsquash/jpeg`) decodes, three
// times faster than a decoder in JavaScript. Baseline and progressive, grey, colour and CMYK. The
// WebAssembly module is compiled on the first JPEG and its instance kept for the next one, unless
// a large image grew its memory past KEEP_MEMORY_BYTES (that memory is given back by dropping the
// instance) or it failed (an instance that failed is never trusted again). Memory is bounded by
// the image's size, which the header check limits to 2,048 pixels a side before anything decodes.
import { readFileSync } from 'node:fs'
import factory from '@jsquash/jpeg/codec/dec/mozjpeg_dec.js'
import wasmFile from '@jsquash/jpeg/codec/dec/mozjpeg_dec.wasm' with { type: 'file' }
import { type GrayImage, grayOf } from './gray.ts'

/** Thrown for a JPEG this decoder cannot read; the caller names the image. */
export class JpegError extends Error {}

/** An instance whose memory grew past this after a decode is dropped, so the memory goes back. */
export const KEEP_MEMORY_BYTES = 24 * 1024 * 1024

interface Decoder {
  decode(
    bytes: Uint8Array,
    preserveOrientation: boolean,
  ): { width: number; height: number; data: Uint8ClampedArray } | null
  HEAPU8: Uint8Array
  /** What libjpeg said while decoding (warnings and errors), cleared before each image. */
  messages: string[]
}

let compiled: WebAssembly.Module | undefined
let kept: Decoder | undefined

function newDecoder(): Decoder {
  compiled ??= new WebAssembly.Module(readFileSync(wasmFile))
  const wasm = compiled
  const messages: string[] = []
  const module: Record<string, unknown> = {
    noInitialRun: true,
    // Synchronous instantiation: the module is ready when the factory returns.
    instantiateWasm(imports: WebAssembly.Imports, ready: (instance: WebAssembly.Instance) => void) {
      const instance = new WebAssembly.Instance(wasm, imports)
      ready(instance)
      return instance.exports
    },
    print: (line: string) => messages.push(line),
    printErr: (line: string) => messages.push(line),
  }
  void (factory as (module: Record<string, unknown>) => Promise<unknown>)(module).catch(() => {})
  if (typeof module.decode !== 'function') throw new JpegError('the JPEG decoder could not start')
  return Object.assign(module as unknown as Decoder, { messages })
}

/**
 * libjpeg's warnings for data that ends before the image does or does not decode: it would fill
 * the rest with made-up pixels, so the image is refused. Extraneous bytes between segments, which
 * some cameras write, leave the pixels whole and are let through.
 */
const DAMAGED = /premature end|bad huffman code|corrupt jpeg data(?!: \d+ extraneous bytes)/i

/** Decodes a JPEG to grey levels (white where nothing is drawn is not a question: JPEG has no alpha). */
export function decodeJpeg(bytes: Uint8Array): GrayImage {
  const decoder = kept ?? newDecoder()
  kept = undefined
  decoder.messages.length = 0
  let decoded: ReturnType<Decoder['decode']>
  try {
    decoded = decoder.decode(bytes, false)
  } catch {
    throw new JpegError(decoder.messages.at(-1) ?? 'not a JPEG file libjpeg can read')
  }
  if (!decoded) throw new JpegError(decoder.messages.at(-1) ?? 'not a JPEG file libjpeg can read')
  const damage = decoder.messages.find((message) => DAMAGED.test(message))
  if (damage) throw new JpegError(damage)
  if (decoder.HEAPU8.length <= KEEP_MEMORY_BYTES) kept = decoder
  const { width, height, data } = decoded
  const luma = new Uint8Array(width * height)
  for (let i = 0, at = 0; i < luma.length; i++, at += 4) luma[i] = grayOf(data[at]!, data[at + 1]!, data[at + 2]!)
  return { width, height, luma }
}

/** For tests: whether an instance is kept for the next image, and its memory. */
export function keptDecoderMemory(): number | undefined {
  return kept?.HEAPU8.length
}
