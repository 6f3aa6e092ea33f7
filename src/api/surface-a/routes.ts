import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../types';

/** Every Surface A resource router, one module per resource (spec "Endpoints", Surface A). */
export function registerSurfaceARoutes(_app: OpenAPIHono<AppEnv>): void {}
