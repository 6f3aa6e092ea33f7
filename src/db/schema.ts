import type { Kysely, Transaction } from 'kysely';
import type { CatalogTables } from './tables/catalog';
import type { ClaimFlowTables } from './tables/claim-flow';
import type { DisbursementTables } from './tables/disbursements';
import type { FundingTables } from './tables/funding';
import type { NotificationTables } from './tables/notifications';
import type { PayoutTables } from './tables/payouts';
import type { PlatformTables } from './tables/platform';
import type { RateLimitTables } from './tables/rate-limits';
import type { WebhookTables } from './tables/webhooks';
import type { TestClockTables } from './tables/test-clocks';
import type { RailTables } from './tables/rails';
import type { TreasuryTables } from './tables/treasury';
import type { RateTables } from './tables/rates';
import type { SolanaTables } from './tables/solana';
import type { AuditTables } from './tables/audit';
import type { ScreeningTables } from './tables/screening';
import type { RecipientScreeningTables } from './tables/recipient-screening';
import type { CardTables } from './tables/cards';

export type { Environment } from './tables/platform';

export interface Database extends PlatformTables, CatalogTables, PayoutTables, WebhookTables, DisbursementTables, FundingTables,
  NotificationTables, RateLimitTables, ClaimFlowTables, TestClockTables, RailTables, TreasuryTables,
  RateTables, SolanaTables, AuditTables,
  ScreeningTables, RecipientScreeningTables, CardTables {}

export type Db = Kysely<Database>;
/** A Kysely transaction or the root handle: functions that take `DbOrTx` join the caller's transaction. */
export type DbOrTx = Kysely<Database> | Transaction<Database>;
