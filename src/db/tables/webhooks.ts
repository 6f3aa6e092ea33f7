import type { Generated, JSONColumnType } from 'kysely';
import type { Environment } from './platform';


export interface WebhookEndpointsTable {
  id: string;
  business_id: string;
  environment: Environment;
  surface: string;
  url: string;
  events: JSONColumnType<string[]>;
  /** Sealed (src/core/secrets.ts); never returned after creation. */
  secret: string;
  previous_secret: Generated<string | null>;
  previous_secret_expires_at: Generated<Date | null>;
  deleted_at: Date | null;
  created_at: Generated<Date>;
}

export interface WebhookDeliveriesTable {
  id: string;
  business_id: string;
  environment: Environment;
  event_id: string;
  endpoint_id: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempt_count: number;
  last_status_code: number | null;
  retry_count: Generated<number>;
  created_at: Generated<Date>;
  completed_at: Date | null;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  run: Generated<string>;
  number: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  created_at: Generated<Date>;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
