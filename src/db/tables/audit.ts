import type { JSONColumnType } from 'kysely';
import type { Environment } from './platform';

/**
 * One privileged act (docs/security.md "Audit trail"); append-only and hash-chained per business:
 * `hash` is the SHA-256 (hex) of this record's canonical JSON with `prev_hash`.
 */
export interface AuditEventsTable {
  id: string;
  business_id: string;
  environment: Environment | null;
  seq: bigint;
  actor_type: 'api_key' | 'operator' | 'system';
  /** An API key id or the operator's `user@host`. */
  actor_id: string;
  action: string;
  object_type: string;
  object_id: string;
  ip: string | null;
  /** As sent; not trusted. */
  forwarded_for: string | null;
  user_agent: string | null;
  request_id: string | null;
  before: JSONColumnType<Record<string, unknown> | null>;
  after: JSONColumnType<Record<string, unknown> | null>;
  created_at: Date;
  prev_hash: string;
  hash: string;
}

export interface AuditTables {
  audit_events: AuditEventsTable;
}
