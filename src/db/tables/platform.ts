import type { Generated, JSONColumnType } from 'kysely';

/** Environment of a key and every row: sandbox (`sk_test_`) or live (`sk_live_`). */
export type Environment = 'sandbox' | 'live';


export interface BusinessesTable {
  id: string;
  name: string;
  verified: boolean;
  approvals_required: Generated<number>;
  /** Verification of Payee for disbursement items (docs/payee-verification.md "Batches"); default true. */
  verify_payee_batches: Generated<boolean>;
  created_at: Generated<Date>;
}

export interface ApiKeysTable {
  id: string;
  business_id: string;
  environment: Environment;
  name: string;
  /** SHA-256 (hex) of the key; the key itself is never stored. */
  key_hash: string;
  prefix: string;
  role: 'owner' | 'member';
  policy: JSONColumnType<Record<string, unknown> | null>;
  created_by_key_id: string | null;
  revoked_at: Date | null;
  created_at: Generated<Date>;
  last4: string | null;
  last_used_at: Date | null;
  /** When a rolled key stops working (401 api_key_expired); null = never. */
  expires_at: Date | null;
  rolled_to_key_id: string | null;
}

export interface IdempotencyKeysTable {
  business_id: string;
  environment: Environment;
  scope: string;
  key: string;
  fingerprint: string;
  state: 'in_flight' | 'done';
  locked_at: Date;
  response_status: number | null;
  response_body: string | null;
  response_headers: JSONColumnType<Record<string, string> | null>;
  created_at: Generated<Date>;
  expires_at: Date;
}

export interface WorkflowStartsTable {
  workflow_id: string;
  workflow_type: string;
  args: JSONColumnType<unknown[]>;
  search_attributes: JSONColumnType<Record<string, string[]>>;
  created_at: Generated<Date>;
  started_at: Date | null;
  /** Lease of the process making this start; null: not claimed. */
  claimed_until: Date | null;
}

export interface PlatformTables {
  businesses: BusinessesTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  workflow_starts: WorkflowStartsTable;
}
