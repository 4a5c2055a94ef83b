/**
 * Waits until `condition` returns (or resolves to) a value other than undefined or false, checking every few
 * milliseconds; fails after `timeoutMs`. For outcomes that follow a response (a log line written
 * after the answer was sent), never as a pause.
 */
export async function waitFor<T>(
  condition: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 2_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = await condition()
    if (value !== undefined && value !== false) return value
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await Bun.sleep(5)
  }
}
