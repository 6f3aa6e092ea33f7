import type { Generated, JSONColumnType } from 'kysely';
import type { Environment } from './platform';
import type { LiveRateColumns } from './rates';


export interface QuotesTable extends LiveRateColumns {
  id: string;
  business_id: string;
  environment: Environment;
  channel: string;
  /** Micro-USDC. */
  source_amount: bigint;
  /** Minor units of destination_currency. */
  destination_amount: bigint;
  destination_currency: string;
  rate: string;
  fee_provider: bigint;
  fee_service: bigint;
  fee_fx_spread: bigint;
  fee_total: bigint;
  fixed_side: 'source' | 'destination';
  expires_at: Date;
  created_at: Generated<Date>;
}

export interface RecipientsTable {
  id: string;
  business_id: string;
  environment: Environment;
  type: string;
  country: string | null;
  currency: string | null;
  name: string | null;
  kind: 'individual' | 'business' | null;
  external_id: string | null;
  /** Unmasked; masked on every response. */
  details: JSONColumnType<Record<string, unknown>>;
  status: 'ready' | 'needs_fields';
  missing_fields: JSONColumnType<string[]>;
  channels: JSONColumnType<string[]>;
  /** Contact recipients only. */
  contact_phone: string | null;
  contact_email: string | null;
  deleted_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Date;
}

export interface ChannelPausesTable {
  channel: string;
  reason: string | null;
  paused_by: string;
  paused_at: Date;
}

export interface CatalogTables {
  channel_pauses: ChannelPausesTable;
  quotes: QuotesTable;
  recipients: RecipientsTable;
}
