import { swaggerUI } from '@hono/swagger-ui';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Core } from '../core/context';
import { ApiError } from '../domain/errors';
import { errorResponse, toApiError } from './errors';
import { hostileInput } from './middleware/hostile-input';
import { methodNotAllowed, RouteTable } from './middleware/method-not-allowed';
import { requestId } from './middleware/request-id';
import { securityHeaders } from './middleware/security-headers';
import { createSurfaceA } from './surface-a';
import { registerPages } from './pages';
import type { AppEnv, Surface } from './types';

/** Surface and environment of a path from its base address (DESIGN.md "One core, three surfaces"). */
export function surfaceOf(path: string): { surface: Surface; environment: 'sandbox' | 'live' } {
  const sandbox = path.startsWith('/sandbox/');
  const rest = sandbox ? path.slice('/sandbox'.length) : path;
  const surface: Surface = rest.startsWith('/claim/') ? 'B' : rest.startsWith('/guide/') ? 'C' : 'A';
  return { surface, environment: sandbox ? 'sandbox' : 'live' };
}

/**
 * The HTTP application: request ids, body limit, the surfaces at their base addresses, public
 * pages (receipts), `/docs`, `/health`, and 404s in the surface's error shape.
 */
export function createApp(core: Core): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    c.set('core', core);
    const { surface, environment } = surfaceOf(c.req.path);
    c.set('surface', surface);
    c.set('environment', environment);
    await next();
  });
  app.use('*', requestId);
  app.use('*', securityHeaders);
  app.use(
    '*',
    bodyLimit({
      maxSize: core.config.MAX_BODY_BYTES,
      onError: () => {
        throw new ApiError(413, 'payload_too_large', `Request body is larger than ${core.config.MAX_BODY_BYTES} bytes`);
      },
    }),
  );
  // Before routing: 405 for undeclared methods, 400 for NUL/surrogates and over-deep JSON (issue #13).
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

  app.route('/v1', createSurfaceA('live'));
  app.route('/sandbox/v1', createSurfaceA('sandbox'));
  registerPages(app);

  app.get('/docs', swaggerUI({ urls: [
    { url: '/sandbox/v1/openapi.json', name: 'Surface A (sandbox)' },
    { url: '/v1/openapi.json', name: 'Surface A (live)' },
  ] }));
  app.get('/', (c) => c.redirect('/docs'));

  app.notFound((c) =>
    errorResponse(c, new ApiError(404, 'not_found', `No route ${c.req.method} ${c.req.path}`, null)),
  );
  return app;
}
