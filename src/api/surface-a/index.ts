/** Surface A, the business interface (spec "Surface A"): snake_case, at `/v1` and `/sandbox/v1`. */
import { defineSurface, type SurfaceRouter } from '../surface';
import { registerApiKeyRoutes } from './api-keys';
import { registerBalanceRoutes } from './balance';
import { registerChannelRoutes } from './channels';
import { registerDisbursementRoutes } from './disbursements';
import { surfaceAErrors } from './errors';
import { registerPayoutRoutes } from './payouts';
import { registerQuoteRoutes } from './quotes';
import { registerRecipientRoutes } from './recipients';
import { registerSandboxRoutes } from './sandbox';
import { registerTestClockRoutes } from './test-clock';
import { registerWebhookRoutes } from './webhooks';
import { registerWebhookDeliveryRoutes } from './webhook-deliveries';
import { registerEventRoutes } from './events';
import { registerVirtualAccountRoutes } from './virtual-accounts';
import { registerDepositRoutes } from './deposits';
import { registerPaymentLinkRoutes } from './payment-links';
import { registerPaymentRequestRoutes } from './payment-requests';
import { registerWithdrawalRoutes } from './withdrawals';
import { registerPayoutApprovalRoutes } from './payout-approvals';
import { registerPayeeVerificationRoutes } from './payee-verification';
import { registerAuditEventRoutes } from './audit-events';

/** Every Surface A resource router, one module per resource (spec "Endpoints", Surface A). */
export function registerSurfaceARoutes(app: SurfaceRouter): void {
  registerPayoutRoutes(app);
  registerBalanceRoutes(app);
  registerSandboxRoutes(app);
  registerTestClockRoutes(app);
  registerChannelRoutes(app);
  registerQuoteRoutes(app);
  registerRecipientRoutes(app);
  registerWebhookRoutes(app);
  registerWebhookDeliveryRoutes(app);
  registerEventRoutes(app);
  registerDisbursementRoutes(app);
  registerApiKeyRoutes(app);
  registerVirtualAccountRoutes(app);
  registerDepositRoutes(app);
  registerPaymentLinkRoutes(app);
  registerPaymentRequestRoutes(app);
  registerWithdrawalRoutes(app);
  registerPayoutApprovalRoutes(app);
  registerPayeeVerificationRoutes(app);
  registerAuditEventRoutes(app);
}

export const surfaceA = defineSurface({
  id: 'A',
  name: 'Surface A',
  liveBase: '/v1',
  sandboxBase: '/sandbox/v1',
  title: 'Payouts API, Surface A (business interface)',
  description:
    'Amounts are decimal strings; timestamps ISO 8601 UTC; durations ISO 8601. Errors: {"error": {code, message, param, request_id}}.',
  errors: surfaceAErrors,
  register: registerSurfaceARoutes,
});
