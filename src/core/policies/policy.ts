/**
 * Key policies (spec "Authentication" 4, Surface A rule 3; docs/getting-paid.md "Key policies"): a
 * key's `daily_budget`, `per_payout_max`, `channels`, `approval_threshold` (USDC Amounts, channel
 * ids), checked on every request that moves money: payouts (POST /payouts, Surface C payouts),
 * withdrawals, and a disbursement's items at launch.
 *
 * `policy_exceeded` is one HTTP status everywhere: **403** (the key is not allowed to do this; the
 * spec leaves the status open), with `param` naming the field that broke the policy.
 */
import { ApiError } from '../../domain/errors';
import { formatAmount, parseAmount, USDC } from '../../domain/money';
import type { Caller } from '../context';

/** The HTTP status of policy_exceeded (chosen: 403; the spec leaves it open). */
export const POLICY_EXCEEDED_STATUS = 403;

/** A key policy with amounts in micro-USDC. */
export interface KeyPolicy {
  dailyBudget?: bigint;
  perPayoutMax?: bigint;
  channels?: readonly string[];
  approvalThreshold?: bigint;
}

/** The caller's policy, parsed (stored normalised by POST /api-keys); null when the key has none. */
export function keyPolicy(caller: Caller): KeyPolicy | null {
  const p = caller.policy;
  if (!p) return null;
  const amount = (v: unknown) => (typeof v === 'string' ? parseAmount(v, USDC) : undefined);
  return {
    dailyBudget: amount(p.daily_budget),
    perPayoutMax: amount(p.per_payout_max),
    channels: Array.isArray(p.channels) ? (p.channels as string[]) : undefined,
    approvalThreshold: amount(p.approval_threshold),
  };
}

/** 403 policy_exceeded naming `param`. */
export const policyExceeded = (param: string, message: string) => new ApiError(POLICY_EXCEEDED_STATUS, 'policy_exceeded', message, param);

/** USDC for messages. */
export const usdc = (minor: bigint) => `${formatAmount(minor, USDC)} USDC`;

/**
 * The checks that need no database: `channels` (403, param `params.channel`) and `per_payout_max`
 * (403, param `params.amount`: the source amount, fees not included, must not exceed it).
 */
export function checkStaticPolicy(policy: KeyPolicy | null, channel: string, sourceAmount: bigint, params: { channel: string; amount: string }): void {
  if (!policy) return;
  if (policy.channels && !policy.channels.includes(channel)) {
    throw policyExceeded(params.channel, `This API key may only use the channels ${policy.channels.join(', ')}; ${channel} is not one of them`);
  }
  if (policy.perPayoutMax !== undefined && sourceAmount > policy.perPayoutMax) {
    throw policyExceeded(params.amount, `This API key's per_payout_max is ${usdc(policy.perPayoutMax)}; this payout's source amount is ${usdc(sourceAmount)}`);
  }
}
