/** Polling for tests: the one `waitFor` every test file can import. */

/** Polls `fn` every 50 ms until it gives a truthy value, which it returns; throws after `timeoutMs` naming `what`. */
export async function waitFor<T>(fn: () => T | Promise<T>, what: string, timeoutMs = 30_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
