import { OpenAPIHono } from '@hono/zod-openapi';
import type { Environment } from '../../db/schema';
import { errorResponse, fromZodError, toApiError } from '../errors';
import { authenticate } from '../middleware/auth';
import type { AppEnv } from '../types';
import { registerSurfaceARoutes } from './routes';

/** Creates the OpenAPIHono app every Surface A router registers on (validation errors -> 400 validation_error). */
export function newSurfaceARouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw fromZodError(result.error as any);
    },
  });
}

/**
 * Surface A, the business interface (spec "Surface A"), for one environment: mounted at `/v1`
 * (live) and `/sandbox/v1` (sandbox). Serves its OpenAPI 3.1 document at `openapi.json`.
 */
export function createSurfaceA(environment: Environment): OpenAPIHono<AppEnv> {
  const app = newSurfaceARouter();
  app.use('*', async (c, next) => {
    c.set('surface', 'A');
    c.set('environment', environment);
    await next();
  });
  app.use('*', async (c, next) => (c.req.path.endsWith('/openapi.json') ? next() : authenticate(c, next)));
  app.onError((err, c) => {
    const apiErr = toApiError(err);
    if (apiErr.status >= 500) c.get('core').log.error({ err, requestId: c.get('requestId') }, 'request failed');
    return errorResponse(c, apiErr);
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  registerSurfaceARoutes(app);
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Payouts API, Surface A (business interface)',
      version: '1.0.0',
      description:
        'Amounts are decimal strings; timestamps ISO 8601 UTC; durations ISO 8601. Errors: {"error": {code, message, param, request_id}}.',
    },
    servers: [{ url: environment === 'live' ? '/v1' : '/sandbox/v1' }],
    security: [{ bearer: [] }],
  });
  return app;
}
