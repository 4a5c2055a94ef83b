// The font file imported with `{ type: 'file' }`: its path (inside the executable when compiled).
declare module '*.bin.gz' {
  const path: string
  export default path
}
