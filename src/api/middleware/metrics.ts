import { timingSafeEqual } from 'node:crypto';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { httpRequestDuration } from '../../core/metrics/registry';
import { METRICS_CONTENT_TYPE, renderMetrics } from '../../core/metrics/scrape';
import { ApiError } from '../../domain/errors';
import type { AppEnv } from '../types';

/**
 * The route template a request matched (`/sandbox/v1/payouts/:id`), also when a middleware answered;
 * `unmatched` otherwise, never the raw path (a series per id).
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
    const method = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'].includes(c.req.method) ? c.req.method : 'OTHER';
    httpRequestDuration.observe(
      { method, route: routeTemplate(c), status: String(c.res.status) },
      (performance.now() - started) / 1000,
    );
  }
};

/**
 * `GET /metrics` (Prometheus text), outside the surfaces: no tenant data. With METRICS_TOKEN set it
 * needs `Authorization: Bearer <METRICS_TOKEN>`, else 401 authentication_required (docs/operations.md).
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
