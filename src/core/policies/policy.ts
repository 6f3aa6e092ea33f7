/**
 * Key policies (spec "Authentication" 4; docs/getting-paid.md "Key policies"), checked on every
 * request that moves money. `policy_exceeded` is always 403 with `param` naming the field.
 */
import { ApiError } from '../../domain/errors';
import { formatAmount, parseAmount, USDC } from '../../domain/money';
import type { Caller } from '../context';

export const POLICY_EXCEEDED_STATUS = 403;

/** Amounts in micro-USDC. */
export interface KeyPolicy {
  dailyBudget?: bigint;
  perPayoutMax?: bigint;
  channels?: readonly string[];
  approvalThreshold?: bigint;
}

/** Null when the key has none. */
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

export const policyExceeded = (param: string, message: string) => new ApiError(POLICY_EXCEEDED_STATUS, 'policy_exceeded', message, param);

export const usdc = (minor: bigint) => `${formatAmount(minor, USDC)} USDC`;

/** `channels` and `per_payout_max` (source amount, fees excluded); 403 policy_exceeded. */
export function checkStaticPolicy(policy: KeyPolicy | null, channel: string, sourceAmount: bigint, params: { channel: string; amount: string }): void {
  if (!policy) return;
  if (policy.channels && !policy.channels.includes(channel)) {
    throw policyExceeded(params.channel, `This API key may only use the channels ${policy.channels.join(', ')}; ${channel} is not one of them`);
  }
  if (policy.perPayoutMax !== undefined && sourceAmount > policy.perPayoutMax) {
    throw policyExceeded(params.amount, `This API key's per_payout_max is ${usdc(policy.perPayoutMax)}; this payout's source amount is ${usdc(sourceAmount)}`);
  }
}
