import type { Core } from '../src/core/context';
import type { DepositActivities } from '../workflows/deposit.contract';
import type { DisbursementActivities } from '../workflows/disbursement.contract';
import type { PaymentRequestActivities } from '../workflows/payment-request.contract';
import type { PayoutActivities, PayoutNotificationActivities } from '../workflows/payout.contract';
import type { RailFileActivities } from '../workflows/rail-files.contract';
import type { RetentionActivities } from '../workflows/retention.contract';
import type { SolanaSweepActivities } from '../workflows/solana-sweep.contract';
import type { SolanaWatchActivities } from '../workflows/solana-watch.contract';
import type { WebhookDeliveryActivities } from '../workflows/webhook-delivery.contract';
import { createDisbursementActivities } from './disbursements';
import { createFundingActivities } from './funding';
import { createNotificationActivities } from './notifications';
import { createPayoutActivities } from './payouts';
import { createRailActivities } from './rails';
import { createRetentionActivities } from './retention';
import { createSolanaActivities } from './solana';
import { createWebhookActivities } from './webhooks';

export type Activities = WebhookDeliveryActivities &
  PayoutActivities &
  PayoutNotificationActivities &
  DisbursementActivities &
  DepositActivities &
  PaymentRequestActivities &
  RailFileActivities &
  RetentionActivities &
  SolanaWatchActivities &
  SolanaSweepActivities;

/** Every activity of the service over the one core (docs/architecture.md "Activities"); each group is idempotent. */
export function createActivities(core: Core): Activities {
  return {
    ...createWebhookActivities(core),
    ...createPayoutActivities(core),
    ...createDisbursementActivities(core),
    ...createNotificationActivities(core),
    ...createFundingActivities(core),
    ...createRailActivities(core),
    ...createRetentionActivities(core),
    ...createSolanaActivities(core),
  };
}
