import type { Context } from 'hono';

/**
 * Sets header `name` on the response a handler already made (in a middleware, after `next()`),
 * on the response's own headers. `c.header()` on a finalized response rebuilds it around its body
 * stream, which sends every such response through Node's slow streaming path instead of
 * `@hono/node-server`'s direct write (docs/benchmarks.md "2026-11-26 (evening)"). Falls back to
 * `c.header()` for a response whose headers are immutable (`Response.redirect`).
 */
export function setResponseHeader(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.header(name, value);
  }
}
