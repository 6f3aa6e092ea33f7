import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../types';
import { registerApiKeyRoutes } from './api-keys';
import { registerBalanceRoutes } from './balance';
import { registerPayoutRoutes } from './payouts';
import { registerSandboxRoutes } from './sandbox';
import { registerChannelRoutes } from './channels';
import { registerDisbursementRoutes } from './disbursements';
import { registerQuoteRoutes } from './quotes';
import { registerRecipientRoutes } from './recipients';
import { registerWebhookRoutes } from './webhooks';
import { registerVirtualAccountRoutes } from './virtual-accounts';
import { registerDepositRoutes } from './deposits';
import { registerPaymentLinkRoutes } from './payment-links';
import { registerPaymentRequestRoutes } from './payment-requests';

/** Every Surface A resource router, one module per resource (spec "Endpoints", Surface A). */
export function registerSurfaceARoutes(app: OpenAPIHono<AppEnv>): void {
  registerPayoutRoutes(app);
  registerBalanceRoutes(app);
  registerSandboxRoutes(app);
  registerChannelRoutes(app);
  registerQuoteRoutes(app);
  registerRecipientRoutes(app);
  registerWebhookRoutes(app);
  registerDisbursementRoutes(app);
  registerApiKeyRoutes(app);
  registerVirtualAccountRoutes(app);
  registerDepositRoutes(app);
  registerPaymentLinkRoutes(app);
  registerPaymentRequestRoutes(app);
}
