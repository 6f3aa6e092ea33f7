import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Core } from '../core/context';
import { ApiError } from '../domain/errors';
import type { Context } from 'hono';
import { registerDocs } from './docs';
import { toApiError } from './errors';
import { hostileInput } from './middleware/hostile-input';
import { methodNotAllowed, RouteTable } from './middleware/method-not-allowed';
import { httpMetrics, registerMetricsRoute } from './middleware/metrics';
import { requestId } from './middleware/request-id';
import { securityHeaders } from './middleware/security-headers';
import { registerPages } from './pages';
import { registerNotificationHooks } from './hooks/notifications';
import { buildSurfaceApp, respondWithError } from './surface';
import { surfaceMounts, surfaceOf } from './surfaces';
import type { AppEnv } from './types';
import { receiveRailWebhook } from '../core/rails/partner-webhooks';
import { receiveCardEvent } from '../core/cards/card-events';

export { surfaceOf };

/** Responds with `err` in the error shape of the surface whose base address the path falls under. */
const errorResponse = (c: Context<AppEnv>, err: ApiError) => respondWithError(c, surfaceOf(c.req.path).definition.errors, err);

/** The HTTP application: every surface at both base addresses, public pages, `/docs`, `/health`, `/metrics`. */
export function createApp(core: Core): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', httpMetrics);
  app.use('*', async (c, next) => {
    c.set('core', core);
    const { surface, environment } = surfaceOf(c.req.path);
    c.set('surface', surface);
    c.set('environment', environment);
    await next();
  });
  app.use('*', requestId);
  app.use('*', securityHeaders);
  const limitBody = bodyLimit({
    maxSize: core.config.MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, 'payload_too_large', `Request body is larger than ${core.config.MAX_BODY_BYTES} bytes`);
    },
  });
  // Skipped for GET/HEAD: reading a body makes @hono/node-server build a whole Request (docs/benchmarks.md).
  app.use('*', (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next)));
  const routes = new RouteTable(app);
  app.use('*', methodNotAllowed(routes));
  app.use('*', hostileInput(routes));
  app.onError((err, c) => errorResponse(c, toApiError(err)));

  app.get('/health', async (c) => {
    const checks: Record<string, string> = {};
    try {
      await core.db.selectFrom('businesses').select('id').limit(1).execute();
      checks.database = 'ok';
    } catch {
      checks.database = 'unavailable';
    }
    try {
      await core.temporal.connection.workflowService.getSystemInfo({});
      checks.temporal = 'ok';
    } catch {
      checks.temporal = 'unavailable';
    }
    const ok = Object.values(checks).every((v) => v === 'ok');
    return c.json({ status: ok ? 'ok' : 'degraded', checks }, ok ? 200 : 503);
  });

  // Payout partners' signed webhooks (docs/rails.md "Payout partner"): outside the surfaces.
  app.post('/hooks/partner/:rail', async (c) => {
    const headers: Record<string, string | undefined> = {};
    c.req.raw.headers.forEach((v, k) => (headers[k.toLowerCase()] = v));
    const r = await receiveRailWebhook(core, c.req.param('rail'), headers, await c.req.text());
    if (!r) return c.json({ error: { code: 'not_found', message: 'No partner rail takes webhooks here' } }, 404);
    if (r.outcome === 'refused') return c.json({ error: { code: r.code, message: r.message } }, r.status);
    return c.json({ received: true, duplicate: r.duplicate }, 200);
  });

  // The card processor's signed events (docs/getting-paid.md "Card payments"): outside the surfaces.
  app.post('/hooks/card/:processor', async (c) => {
    const headers: Record<string, string | undefined> = {};
    c.req.raw.headers.forEach((v, k) => (headers[k.toLowerCase()] = v));
    const r = await receiveCardEvent(core, c.req.param('processor'), headers, await c.req.text());
    if (!r) return c.json({ error: { code: 'not_found', message: 'No card processor takes events here' } }, 404);
    return c.json(r.body, r.status);
  });

  const mounts = surfaceMounts();
  for (const m of mounts) app.route(m.base, buildSurfaceApp(m.definition, m.environment));
  registerPages(app);
  registerNotificationHooks(app);

  registerDocs(app);
  registerMetricsRoute(app);
  app.get('/', (c) => c.redirect('/docs'));

  app.notFound((c) =>
    errorResponse(c, new ApiError(404, 'not_found', `No route ${c.req.method} ${c.req.path}`, null)),
  );
  return app;
}
