import type { MiddlewareHandler } from 'hono';
import { validationError } from '../../domain/errors';
import type { AppEnv } from '../types';
import type { RouteTable } from './method-not-allowed';

/**
 * Hostile input stops at the door (docs/security.md, which has the table of cases): a NUL or an
 * unpaired UTF-16 surrogate anywhere in the query, a path segment, a header or the body, a form body
 * that does not parse, or JSON nested deeper than {@link MAX_JSON_DEPTH} is 400 `validation_error`
 * naming the `param`. Runs for every surface before routing; the surface renders the error.
 */

/** Deepest JSON nesting accepted in a request body: objects and arrays, the outermost counting 1. */
export const MAX_JSON_DEPTH = 32;

// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const BAD_CHAR = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a string holds a NUL character or an unpaired UTF-16 surrogate. */
export function hasHostileChars(s: string): boolean {
  return BAD_CHAR.test(s);
}

function refuse(param: string | null, where: string): never {
  throw validationError(
    param,
    `${param ?? where} must not contain NUL characters or unpaired UTF-16 surrogates`,
  );
}

/** Deepest `[`/`{` nesting of a JSON text, scanned iteratively; stops once past `limit`. Not a validator. */
export function jsonDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c /* \ */) i++;
      else if (ch === 0x22 /* " */) inString = false;
      continue;
    }
    if (ch === 0x22) inString = true;
    else if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) depth--;
  }
  return max;
}

/**
 * First key or string value of a parsed JSON value with a NUL or unpaired surrogate, as its dotted
 * path (`items.3.name`; a bad key is reported by its own path), or undefined. Iterative.
 */
export function findHostileJson(value: unknown): { path: string } | undefined {
  const stack: { v: unknown; path: string[] }[] = [{ v: value, path: [] }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (hasHostileChars(v)) return { path: path.join('.') };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: [...path, String(i)] });
    } else if (v && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i];
        if (hasHostileChars(k)) return { path: [...path, k.replace(BAD_CHAR, '?')].join('.') };
        stack.push({ v: child, path: [...path, k] });
      }
    }
  }
  return undefined;
}

function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** The middleware; `routes` names path parameters (a segment no route serves is param `path`). */
export function hostileInput(routes: RouteTable): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const url = new URL(c.req.url);

    const parts = url.pathname.split('/');
    for (let i = 0; i < parts.length; i++) {
      if (!parts[i].includes('%')) continue;
      const decoded = safeDecode(parts[i]);
      if (decoded !== null && !hasHostileChars(decoded)) continue;
      const name = routes
        .match(url.pathname)
        .flatMap((m) => m.params)
        .find((p) => p.index === i)?.name;
      if (decoded === null) throw validationError(name ?? 'path', `${name ?? 'path'} is not valid percent-encoded UTF-8`);
      refuse(name ?? 'path', 'path');
    }

    for (const [k, v] of url.searchParams) {
      if (hasHostileChars(k)) refuse(k.replace(BAD_CHAR, '?'), 'query');
      if (hasHostileChars(v)) refuse(k, 'query');
    }

    // Node's parser refuses NUL on the wire; an in-process caller may not.
    c.req.raw.headers.forEach((v, k) => {
      if (hasHostileChars(v)) refuse(k, 'header');
    });

    const method = c.req.method;
    if (method !== 'GET' && method !== 'HEAD' && c.req.raw.body) {
      const type = (c.req.header('Content-Type') ?? '').toLowerCase();
      if (type.startsWith('multipart/form-data') || type.startsWith('application/x-www-form-urlencoded')) {
        let form: Record<string, unknown>;
        try {
          form = await c.req.parseBody({ all: true });
        } catch {
          throw validationError('body', `body is not a valid ${type.split(';')[0]} body`);
        }
        for (const [k, v] of Object.entries(form)) {
          for (const item of Array.isArray(v) ? v : [v]) {
            const text = typeof item === 'string' ? item : item instanceof Blob ? await item.text() : '';
            if (hasHostileChars(k) || hasHostileChars(text)) refuse(k.replace(BAD_CHAR, '?'), 'body');
          }
        }
      } else {
        const raw = await c.req.text();
        const trimmed = raw.trimStart();
        if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
          if (jsonDepth(raw, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
            throw validationError(null, `JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`);
          }
          let parsed: unknown;
          try {
            parsed = JSON.parse(raw);
          } catch {
            return next(); // malformed JSON: the route's validator reports it
          }
          const bad = findHostileJson(parsed);
          if (bad) refuse(bad.path || null, 'body');
        } else if (hasHostileChars(raw)) {
          refuse('body', 'body');
        }
      }
    }
    await next();
  };
}
