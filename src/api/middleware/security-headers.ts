import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../types';

/**
 * App-wide response headers (docs/security.md "Secrets are shown once"): every response
 * `nosniff` and `Cache-Control: no-store` unless the route set its own (tenant data and secrets);
 * every HTML page but `/docs` a strict CSP from its own inline blocks' hashes, `X-Frame-Options:
 * DENY` and `Referrer-Policy: no-referrer` (page URLs carry bearer tokens).
 */

/**
 * The CSP of an HTML document: inline style and script blocks admitted by hash. `formAction` widens
 * `form-action 'self'` for a page whose form is answered by a redirect elsewhere (browsers check
 * form-action on the redirect too): the payment page's card form goes on to the card processor's
 * checkout (docs/getting-paid.md "Card payments").
 */
export function pageContentSecurityPolicy(html: string, opts: { formAction?: readonly string[] } = {}): string {
  const hashes = (tag: 'style' | 'script') => {
    const out = new Set<string>();
    const re = tag === 'style' ? /<style(?:\s[^>]*)?>([\s\S]*?)<\/style>/gi : /<script(?:\s[^>]*)?>([\s\S]*?)<\/script>/gi;
    for (const m of html.matchAll(re)) out.add(`'sha256-${createHash('sha256').update(m[1], 'utf8').digest('base64')}'`);
    return [...out];
  };
  const styles = hashes('style');
  const scripts = hashes('script');
  return [
    "default-src 'none'",
    styles.length ? `style-src ${styles.join(' ')}` : null,
    scripts.length ? `script-src ${scripts.join(' ')}` : null,
    "img-src 'self' data:",
    ["form-action 'self'", ...(opts.formAction ?? [])].join(' '),
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ]
    .filter(Boolean)
    .join('; ');
}

/** Paths whose HTML is not ours to lock down (Swagger UI loads its own assets). */
const CSP_EXEMPT = (path: string) => path === '/docs' || path.startsWith('/docs/');

export const securityHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  let res = c.res;
  try {
    res.headers.set('X-Content-Type-Options', 'nosniff');
  } catch {
    // immutable headers (Response.redirect)
    c.res = undefined as never;
    c.res = new Response(res.body, res);
    res = c.res;
    res.headers.set('X-Content-Type-Options', 'nosniff');
  }
  if (!res.headers.has('Cache-Control')) res.headers.set('Cache-Control', 'no-store');
  const type = res.headers.get('Content-Type') ?? '';
  if (type.startsWith('text/html') && !CSP_EXEMPT(c.req.path)) {
    // A page may set its own (pageContentSecurityPolicy with options); else it is derived here.
    if (!res.headers.has('Content-Security-Policy')) {
      const html = await res.clone().text();
      res.headers.set('Content-Security-Policy', pageContentSecurityPolicy(html));
    }
    res.headers.set('X-Frame-Options', 'DENY');
    res.headers.set('Referrer-Policy', 'no-referrer');
  }
};
