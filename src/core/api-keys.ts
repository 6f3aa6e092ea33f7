/**
 * Scoped API keys (spec "Authentication" 3-5, Surface A `POST /api-keys`). The owner creates more
 * keys for the business in the caller's environment (a business gets a submitter and an approver).
 * Policies are validated, stored and returned here, and enforced by src/core/policies (docs/getting-paid.md).
 */
import { issueKey } from './businesses';
import { knownChannel } from './catalog';
import type { Caller, Core } from './context';
import { parseAmountParam, formatAmount, USDC } from '../domain/money';
import { ApiError, validationError } from '../domain/errors';

/** Spec "ApiKey create" policy: Amounts are USDC decimal strings; channels are catalog ids. */
export interface ApiKeyPolicy {
  daily_budget?: string;
  per_payout_max?: string;
  channels?: string[];
  approval_threshold?: string;
}

/** Spec "ApiKey response": the secret `key` appears in the creation response only. */
export interface CreatedApiKey {
  id: string;
  object: 'api_key';
  name: string;
  key: string;
  prefix: string;
  role: 'member';
  policy: ApiKeyPolicy | null;
  created_at: string;
}

/** A USDC Amount in canonical form; 400 validation_error naming `param` when malformed or zero. */
function usdc(value: string, param: string): string {
  return formatAmount(parseAmountParam(value, USDC, param), USDC);
}

/**
 * Validates and normalises a key policy: amounts canonical ("100" -> "100.00"), channels known
 * (400 validation_error, param `policy.channels.<i>`), duplicates removed. Null/undefined -> null.
 */
export function normalisePolicy(policy: ApiKeyPolicy | null | undefined): ApiKeyPolicy | null {
  if (!policy) return null;
  const out: ApiKeyPolicy = {};
  if (policy.daily_budget !== undefined) out.daily_budget = usdc(policy.daily_budget, 'policy.daily_budget');
  if (policy.per_payout_max !== undefined) out.per_payout_max = usdc(policy.per_payout_max, 'policy.per_payout_max');
  if (policy.approval_threshold !== undefined) {
    out.approval_threshold = usdc(policy.approval_threshold, 'policy.approval_threshold');
  }
  if (policy.channels !== undefined) {
    const seen: string[] = [];
    policy.channels.forEach((id, i) => {
      knownChannel(id, `policy.channels.${i}`);
      if (!seen.includes(id)) seen.push(id);
    });
    out.channels = seen;
  }
  return out;
}

/**
 * `POST /api-keys`: issues a `member` key of the caller's business and environment. Owner keys
 * only: any other caller gets 403 permission_denied. 400 validation_error for a blank name or a
 * bad policy. Returns the key once (only its SHA-256 is stored).
 */
export async function createApiKey(
  core: Core,
  caller: Caller,
  input: { name: string; policy?: ApiKeyPolicy | null },
): Promise<CreatedApiKey> {
  if (caller.role !== 'owner') {
    throw new ApiError(403, 'permission_denied', 'Only the owner key can create API keys', null);
  }
  const name = input.name?.trim();
  if (!name) throw validationError('name', 'name is required');
  const policy = normalisePolicy(input.policy);
  const issued = await issueKey(core.db, {
    businessId: caller.businessId,
    environment: caller.environment,
    name,
    role: 'member',
    policy: policy as Record<string, unknown> | null,
    createdByKeyId: caller.keyId,
  });
  const row = await core.db.selectFrom('api_keys').select('created_at').where('id', '=', issued.id).executeTakeFirstOrThrow();
  return {
    id: issued.id,
    object: 'api_key',
    name,
    key: issued.key,
    prefix: issued.prefix,
    role: 'member',
    policy,
    created_at: new Date(row.created_at).toISOString(),
  };
}
