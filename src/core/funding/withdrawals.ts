/**
 * Withdrawals (spec "Withdrawal create body"): a payout on the rail of its currency (USD -> ach_usd,
 * EUR -> sepa_eur, MXN -> spei_mxn) to a saved bank_account recipient of the business.
 */
import { ApiError, notFound, validationError } from '../../domain/errors';
import { VIRTUAL_ACCOUNT_RAIL } from '../../domain/funding';
import type { Caller, Core } from '../context';
import type { Payout } from '../../domain/payouts';
import { createPayout } from '../payouts';
import { requireVerifiedBusiness } from './verification';
import { parseVirtualAccountCurrency } from './virtual-accounts';
import { scoped } from '../tenancy';

/** Spec "Withdrawal create body" as parsed by a surface (exactly one of sourceAmount / destinationAmount). */
export interface WithdrawalCreate {
  currency: unknown;
  payoutDestinationId: unknown;
  sourceAmount?: string;
  destinationAmount?: string;
  reference?: string;
}

/**
 * POST /withdrawals through {@link createPayout}. 400 validation_error (`currency`, `payout_destination_id`:
 * missing, not a bank_account, or not payable on the currency's rail); 403 verification_required;
 * 404 not_found `payout_destination_id`; then everything createPayout throws.
 */
export async function createWithdrawal(
  core: Core,
  caller: Caller,
  input: WithdrawalCreate,
  opts: { idempotencyKey?: string } = {},
): Promise<Payout> {
  const currency = parseVirtualAccountCurrency(input.currency);
  if (typeof input.payoutDestinationId !== 'string' || !input.payoutDestinationId) {
    throw validationError('payout_destination_id', 'payout_destination_id is required: a saved bank_account recipient of your business');
  }
  const destinationId = input.payoutDestinationId;
  await requireVerifiedBusiness(core.db, caller, 'A withdrawal');
  const channel = VIRTUAL_ACCOUNT_RAIL[currency];
  const r = await scoped(core.db, caller)
    .selectFrom('recipients')
    .select(['id', 'type', 'currency', 'status', 'channels'])
    .where('id', '=', destinationId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!r) throw notFound('payout destination', destinationId, 'payout_destination_id');
  if (r.type !== 'bank_account') {
    throw validationError('payout_destination_id', `Recipient ${r.id} is a ${r.type} recipient; a withdrawal goes to a saved bank_account recipient`);
  }
  if (r.status === 'ready' && !r.channels.includes(channel)) {
    throw validationError(
      'payout_destination_id',
      `Recipient ${r.id} cannot receive ${currency} (${channel}); it can be paid on: ${r.channels.join(', ') || 'no channel'}`,
    );
  }
  if (r.status !== 'ready' && r.currency && r.currency !== currency) {
    throw validationError('payout_destination_id', `Recipient ${r.id} is a ${r.currency} account, not ${currency}`);
  }
  try {
    return await createPayout(
      core,
      caller,
      { channel, recipientId: r.id, sourceAmount: input.sourceAmount, destinationAmount: input.destinationAmount, reference: input.reference },
      { idempotencyKey: opts.idempotencyKey },
    );
  } catch (err) {
    // createPayout names the payout's field; a withdrawal calls it payout_destination_id.
    if (err instanceof ApiError && err.param === 'recipient_id') {
      throw new ApiError(err.status, err.code, err.message, 'payout_destination_id', err.details);
    }
    // A key policy's channel list names the rail; a withdrawal chooses it by currency.
    if (err instanceof ApiError && err.code === 'policy_exceeded' && err.param === 'channel') {
      throw new ApiError(err.status, err.code, err.message, 'currency', err.details);
    }
    throw err;
  }
}
