import { createHash } from 'node:crypto';

/** SHA-256 hex of a full API key, as stored (docs/architecture.md "Money rules" 8). */
export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** A key's spending policy (spec "ApiKey create"): amounts are canonical USDC decimal strings, channels catalog ids. */
export interface ApiKeyPolicy {
  dailyBudget?: string;
  perPayoutMax?: string;
  channels?: string[];
  approvalThreshold?: string;
}

/** An API key without its secret (spec "Authentication"; docs/api-keys.md): only `prefix` (12 characters) and `last4`. */
export interface ApiKey {
  id: string;
  businessId: string;
  environment: 'sandbox' | 'live';
  name: string;
  prefix: string;
  last4: string | null;
  role: 'owner' | 'member';
  policy: ApiKeyPolicy | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** A key just issued or rolled, with its secret `key` (returned this once). */
export interface CreatedApiKey extends ApiKey {
  key: string;
}
