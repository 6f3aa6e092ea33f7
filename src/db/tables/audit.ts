import type { JSONColumnType } from 'kysely';
import type { Environment } from './platform';

/**
 * One privileged act (docs/security.md "Audit trail"; src/core/audit.ts is the one writer).
 * Append-only (migration 0065) and hash-chained per business: `seq` counts 1, 2, 3 … within
 * `business_id` (`platform` for acts on no business), `prev_hash` is the previous record's `hash`
 * ('' for the first), `hash` the SHA-256 (hex) of this record's canonical JSON with `prev_hash`.
 */
export interface AuditEventsTable {
  /** `aud_…`, time-ordered. */
  id: string;
  business_id: string;
  environment: Environment | null;
  seq: bigint;
  actor_type: 'api_key' | 'operator' | 'system';
  /** The API key id (`key_…`) or the operator's name (`user@host`). */
  actor_id: string;
  /** `<object>.<verb>`, e.g. `api_key.revoked`, `disbursement.approved`, `channel.paused`. */
  action: string;
  object_type: string;
  object_id: string;
  /** The client's address as the API process saw it (the socket peer), or null (in-process, CLI). */
  ip: string | null;
  /** The request's X-Forwarded-For header as sent (not trusted; recorded for investigation). */
  forwarded_for: string | null;
  user_agent: string | null;
  request_id: string | null;
  before: JSONColumnType<Record<string, unknown> | null>;
  after: JSONColumnType<Record<string, unknown> | null>;
  created_at: Date;
  prev_hash: string;
  hash: string;
}

/** Tables of the audit trail. */
export interface AuditTables {
  audit_events: AuditEventsTable;
}
