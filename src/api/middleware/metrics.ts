import { timingSafeEqual } from 'node:crypto';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { httpRequestDuration } from '../../core/metrics/registry';
import { METRICS_CONTENT_TYPE, renderMetrics } from '../../core/metrics/scrape';
import { ApiError } from '../../domain/errors';
import type { AppEnv } from '../types';

/**
 * The route template a request matched: the path of the last matched route registered for a
 * method (`/sandbox/v1/payouts/:id`), so a request answered by a middleware (401, 413) is still
 * labelled with its endpoint. `unmatched` when no endpoint matched (404s of unknown paths):
 * never the raw path, which would make a series per id.
 */
export function routeTemplate(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    if (routes[i].method !== 'ALL') return routes[i].path;
  }
  return 'unmatched';
}

/** Records every request's duration in `http_request_duration_seconds` (method, route template, status). */
export const httpMetrics: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = performance.now();
  try {
    await next();
  } finally {
    // Hono answers thrown errors through onError inside next(), so c.res carries the final status.
    const method = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'].includes(c.req.method) ? c.req.method : 'OTHER';
    httpRequestDuration.observe(
      { method, route: routeTemplate(c), status: String(c.res.status) },
      (performance.now() - started) / 1000,
    );
  }
};

/**
 * `GET /metrics` (Prometheus text format) on the API. Deliberately outside every surface and its
 * API keys: it holds no tenant data (no ids, no amounts). When METRICS_TOKEN is set it requires
 * `Authorization: Bearer <METRICS_TOKEN>` (401 authentication_required otherwise), for deployments
 * where the API port is reachable from the internet (docs/operations.md).
 */
export function registerMetricsRoute(app: Hono<AppEnv>): void {
  app.get('/metrics', async (c) => {
    const core = c.get('core');
    const token = core.config.METRICS_TOKEN;
    if (token) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('Authorization') ?? '');
      const given = Buffer.from(m?.[1] ?? '');
      const wanted = Buffer.from(token);
      if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
        throw new ApiError(401, 'authentication_required', 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>"', null);
      }
    }
    return c.body(await renderMetrics(core.db), 200, { 'Content-Type': METRICS_CONTENT_TYPE, 'Cache-Control': 'no-store' });
  });
}
