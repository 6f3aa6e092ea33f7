import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../types';
import { registerSandboxRoutes } from './sandbox';
import { registerPayoutRoutes } from './payouts';
import { registerBalanceRoutes } from './balance';
import { registerChannelRoutes } from './channels';
import { registerQuoteRoutes } from './quotes';
import { registerRecipientRoutes } from './recipients';
import { registerWebhookRoutes } from './webhooks';

/** Every Surface A resource router, one module per resource (spec "Endpoints", Surface A). */
export function registerSurfaceARoutes(app: OpenAPIHono<AppEnv>): void {
  registerPayoutRoutes(app);
  registerBalanceRoutes(app);
  registerSandboxRoutes(app);
  registerChannelRoutes(app);
  registerQuoteRoutes(app);
  registerRecipientRoutes(app);
  registerWebhookRoutes(app);
}
