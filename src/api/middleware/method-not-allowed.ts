import type { Hono, MiddlewareHandler } from 'hono';
import { ApiError } from '../../domain/errors';
import type { AppEnv } from '../types';

/**
 * Method checks against the app's own route table (docs/security.md "Undeclared methods"), read
 * from `app.routes` on first use (every router is mounted by then), so there is no second list.
 */

/** `:name` segments are parameters, `*` the rest. */
interface CompiledRoute {
  method: string;
  segments: string[];
}

/** A path parameter, as the route that would serve the request names it. */
export interface MatchedParam {
  name: string;
  /** Index of its segment in the path split on `/` (0 = before the leading slash). */
  index: number;
}

/** The route table of an app: which methods serve a path, and what its parameters are named. */
export class RouteTable {
  /** By segment count (a pattern without `*` matches only paths that long): every request is matched twice. */
  #compiled: { byLength: Map<number, CompiledRoute[]>; wildcard: CompiledRoute[] } | undefined;
  constructor(private readonly app: Hono<AppEnv>) {}

  #routes(parts: number): CompiledRoute[] {
    if (!this.#compiled) {
      const seen = new Set<string>();
      const compiled = { byLength: new Map<number, CompiledRoute[]>(), wildcard: [] as CompiledRoute[] };
      for (const r of this.app.routes) {
        if (r.method === 'ALL') continue;
        const key = `${r.method} ${r.path}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const route = { method: r.method.toUpperCase(), segments: r.path.split('/') };
        if (route.segments.includes('*')) compiled.wildcard.push(route);
        else compiled.byLength.set(route.segments.length, [...(compiled.byLength.get(route.segments.length) ?? []), route]);
      }
      this.#compiled = compiled;
    }
    const exact = this.#compiled.byLength.get(parts) ?? [];
    return this.#compiled.wildcard.length ? [...exact, ...this.#compiled.wildcard] : exact;
  }

  /** Routes whose pattern matches the raw path, most literal segments first. */
  match(rawPath: string): { method: string; params: MatchedParam[] }[] {
    const parts = rawPath.split('/');
    const out: { method: string; params: MatchedParam[]; literals: number }[] = [];
    for (const r of this.#routes(parts.length)) {
      const m = matchSegments(r.segments, parts);
      if (m) out.push({ method: r.method, ...m });
    }
    return out.sort((a, b) => b.literals - a.literals);
  }

  /** Methods (upper case) declared for a path; HEAD wherever GET is. Empty: unknown path. */
  allowed(rawPath: string): string[] {
    const methods = new Set(this.match(rawPath).map((m) => m.method));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }
}

function matchSegments(pattern: string[], parts: string[]): { params: MatchedParam[]; literals: number } | null {
  const params: MatchedParam[] = [];
  let literals = 0;
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p === '*') return { params, literals };
    if (i >= parts.length) return null;
    if (p.startsWith(':')) {
      if (parts[i] === '') return null;
      params.push({ name: p.slice(1).replace(/\{.*$/, '').replace(/\?$/, ''), index: i });
    } else if (p === parts[i]) {
      literals++;
    } else {
      return null;
    }
  }
  return pattern.length === parts.length ? { params, literals } : null;
}

/**
 * 405 `method_not_allowed` with an `Allow` header for a method no route declares on a path other
 * methods serve; unknown paths fall through to 404. Runs before authentication, so it ignores the key.
 */
export function methodNotAllowed(table: RouteTable): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const method = c.req.method.toUpperCase();
    const path = new URL(c.req.url).pathname;
    const allowed = table.allowed(path);
    if (allowed.length > 0 && !allowed.includes(method)) {
      c.header('Allow', allowed.join(', '));
      throw new ApiError(405, 'method_not_allowed', `${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`, null);
    }
    await next();
  };
}
