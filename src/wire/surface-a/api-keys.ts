/** Surface A's API key (spec "Authentication"; docs/api-keys.md): snake_case, ISO 8601 UTC times, never the secret. */
import type { ApiKey, ApiKeyPolicy } from '../../domain/api-keys';

/** Spec "ApiKey create" policy: USDC decimal strings; keys in the order the stored JSON is read back. */
export interface WireApiKeyPolicy {
  channels?: string[];
  daily_budget?: string;
  per_payout_max?: string;
  approval_threshold?: string;
}

/** Spec "ApiKey": `created_at`, `last_used_at`, `expires_at`, `revoked_at` ISO 8601 or null. */
export interface WireApiKey {
  id: string;
  object: 'api_key';
  name: string;
  prefix: string;
  last4: string | null;
  role: 'owner' | 'member';
  policy: WireApiKeyPolicy | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

/** Surface A's policy; absent fields stay absent. */
export function renderApiKeyPolicy(p: ApiKeyPolicy): WireApiKeyPolicy {
  const out: WireApiKeyPolicy = {};
  if (p.channels !== undefined) out.channels = p.channels;
  if (p.dailyBudget !== undefined) out.daily_budget = p.dailyBudget;
  if (p.perPayoutMax !== undefined) out.per_payout_max = p.perPayoutMax;
  if (p.approvalThreshold !== undefined) out.approval_threshold = p.approvalThreshold;
  return out;
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

/** Surface A's key; also the `before`/`after` snapshot of its audit records (docs/security.md "Audit trail"). */
export function renderApiKey(k: ApiKey): WireApiKey {
  return {
    id: k.id,
    object: 'api_key',
    name: k.name,
    prefix: k.prefix,
    last4: k.last4,
    role: k.role,
    policy: k.policy === null ? null : renderApiKeyPolicy(k.policy),
    created_at: k.createdAt.toISOString(),
    last_used_at: iso(k.lastUsedAt),
    expires_at: iso(k.expiresAt),
    revoked_at: iso(k.revokedAt),
  };
}
