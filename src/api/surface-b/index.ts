/**
 * Surface B, the claim-flow disbursement interface (spec "Surface B"): camelCase, at `/claim/v1` and
 * `/sandbox/claim/v1`, rate-limited per organisation; a disbursement is a core claim-link payout.
 */
import { rateLimit } from '../middleware/rate-limit';
import { defineSurface, type SurfaceRouter } from '../surface';
import { registerBatchRoutes } from './batch';
import { registerCardRefundRoutes } from './card-refunds';
import { registerDisbursementRoutes } from './disbursements';
import { surfaceBErrors } from './errors';
import { registerEventRoutes } from './events';
import { registerFundingRoutes } from './funding';
import { surfaceBRateLimitRules } from './rate-limits';
import { registerRecipientRoutes } from './recipients';
import { registerSandboxRoutes } from './sandbox';
import { registerWebhookRoutes } from './webhooks';
import { registerWebhookDeliveryRoutes } from './webhook-deliveries';

/** Registers Surface B's rate limits, then every resource router. */
export function registerSurfaceBRoutes(app: SurfaceRouter): void {
  app.use('*', async (c, next) => {
    const base = c.get('environment') === 'live' ? '/claim/v1' : '/sandbox/claim/v1';
    const rel = c.req.path.startsWith(base) ? c.req.path.slice(base.length) || '/' : c.req.path;
    return rateLimit({ rules: () => surfaceBRateLimitRules(c.req.method, rel) })(c, next);
  });
  registerBatchRoutes(app);
  registerDisbursementRoutes(app);
  registerRecipientRoutes(app);
  registerSandboxRoutes(app);
  registerWebhookRoutes(app);
  registerWebhookDeliveryRoutes(app);
  registerEventRoutes(app);
  registerFundingRoutes(app);
  registerCardRefundRoutes(app);
}

export const surfaceB = defineSurface({
  id: 'B',
  name: 'Surface B',
  liveBase: '/claim/v1',
  sandboxBase: '/sandbox/claim/v1',
  title: 'Payouts API, Surface B (claim-flow disbursements)',
  description:
    'Send money to a phone number or an e-mail address; the recipient claims it on a claim page within 30 days. camelCase fields; amounts are ' +
    'USD decimal strings (1 USD = 1 USDC of the balance). Errors: {"error": code, "message", "details": {param, requestId, ...}}. ' +
    'Idempotency: body field idempotencyKey (or the Idempotency-Key header), 24 hours. Rate limits per organisation: POST /disbursements ' +
    '100/min, POST /disbursements/batch 10/min, GET 300/min, everything 1,000/min; headers X-RateLimit-Limit, -Remaining, -Reset (Unix s).',
  errors: surfaceBErrors,
  register: registerSurfaceBRoutes,
});
