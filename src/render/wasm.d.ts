// A WebAssembly module imported with `{ type: 'file' }`: its path (inside the executable when compiled).
declare module '*.wasm' {
  const path: string
  export default path
}
