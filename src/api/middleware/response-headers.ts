import type { Context } from 'hono';

/**
 * Sets a header on the response already made, in place: `c.header()` would rebuild it around its
 * body stream, off `@hono/node-server`'s fast path (docs/benchmarks.md). Immutable headers fall back to it.
 */
export function setResponseHeader(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.header(name, value);
  }
}
