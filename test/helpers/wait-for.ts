/** Polls `probe` until it gives a value (not undefined or false), or fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(probe: () => T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
