/**
 * Preparing a payout (spec "Payout create body"): validation and pricing, read-only. The
 * disbursements engine prepares each item the same way.
 */
import { type ChannelDefinition, channelAcceptsRecipientType, findChannel, type RecipientType } from '../../domain/channels';
import { ApiError, notFound, validationError } from '../../domain/errors';
import { parseAmountParam, formatAmount, USDC } from '../../domain/money';
import { type Price, price as priceOf } from '../../domain/pricing';
import { type InlineRecipient, validateInlineRecipient } from '../../domain/recipients';
import { livePauseReason, railStatusFor, statusFor } from '../catalog';
import { CLAIM_LINK, claimLinkLiveProblem } from '../claim-routes';
import { freshPausedChannels } from '../channel-pauses';
import { freshRateCache } from '../rates/cache';
import type { Caller, Core } from '../context';
import { railCarriageProblem, railLatestArrival } from '../rails/rail-adapters';
import { livePricingOf } from '../quotes';
import { missingLiveRate, pricingRate, rateUnavailable } from '../rates/pricing-rate';
import { MAX_REFERENCE_LENGTH, MAX_MEMO_LENGTH, MAX_MESSAGE_LENGTH } from './rows';
import { scoped } from '../tenancy';

/**
 * Spec "Payout create body" in core form (decimal strings as given on the wire). Exactly one of
 * recipientId / recipient; exactly one of sourceAmount (USDC) / destinationAmount (channel
 * currency), both optional with a quoteId (the quote fixes the amounts; if given they must match).
 */
export interface PayoutRequest {
  channel: string;
  recipientId?: string;
  recipient?: InlineRecipient;
  quoteId?: string;
  sourceAmount?: string;
  destinationAmount?: string;
  reference?: string;
  memo?: string;
  message?: string;
  /** Skip the channel's maximum (Surface B disbursements: spec "Limits", no maximum); never on the wire of Surface A. */
  noMaximum?: boolean;
}

/** A validated and priced payout request, ready for insertPayout (./accept.ts). */
export interface PreparedPayout {
  channel: ChannelDefinition;
  /** Saved recipient id, or null for an inline recipient. */
  recipientId: string | null;
  recipientType: RecipientType;
  /** Normalised destination details (unmasked: stored as is, masked in every response). */
  recipientDetails: Record<string, unknown>;
  quoteId: string | null;
  /** Amounts in micro-USDC (destination in minor units of its currency); debitTotal is what is held. */
  price: Price;
  reference: string | null;
  memo: string | null;
  message: string | null;
  /**
   * Latest arrival when the rail's calendar sets it (a live bank file rail: cut-off and TARGET2
   * closing days, docs/rails.md); absent: acceptance time + the channel's arrival.max.
   */
  latestArrival?: Date;
}

const isGiven = (v: unknown) => v !== undefined && v !== null;

/** Re-throws an ApiError with its param prefixed (`recipient.number` -> `items.3.recipient.number`). */
function prefixed<T>(prefix: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (prefix && e instanceof ApiError && e.param) {
      throw new ApiError(e.status, e.code, e.message, `${prefix}${e.param}`, e.details);
    }
    throw e;
  }
}

function optionalText(value: unknown, param: string, max: number): string | null {
  if (!isGiven(value)) return null;
  if (typeof value !== 'string') throw validationError(param, `${param} must be a string`);
  if (value.length > max) throw validationError(param, `${param} must be at most ${max} characters (got ${value.length})`);
  return value;
}


/**
 * Validates and prices a payout request without writing anything (spec "Payout create body",
 * "Errors", "Limits"). Errors name the wire param, prefixed by `opts.paramPrefix` (e.g. `items.3.`):
 * - 400 validation_error: channel missing/unknown (`channel`); not exactly one of recipient_id /
 *   recipient (`recipient_id`, or `recipient` when both); not exactly one of source_amount /
 *   destination_amount; malformed amount or too many decimals (2 fiat, 6 USDC); reference over 140
 *   characters; memo/message too long; `message` on a channel other than claim_link; a saved
 *   recipient whose type the channel does not pay (`recipient_id`); invalid inline recipient
 *   (`recipient.<field>`); a quote of another channel (`quote_id`); an amount that differs from the
 *   quote's.
 * - 400 channel_unavailable (`channel`): channel paused (PAUSED_CHANNELS), or in live without a
 *   working rail; live claim_link: no live rail to claim to, or (`recipient_id` / `recipient.number`
 *   / `recipient.address`) no live provider for the recipient's kind (docs/notifications.md).
 * - 400 amount_out_of_range: source amount outside the channel limits.
 * - 404 not_found: recipient_id / quote_id unknown in this business and environment.
 * - 410 quote_expired (`quote_id`): the quote's 60 seconds are over.
 * - 422 recipient_not_ready: saved recipient in needs_fields or not payable on this channel
 *   (`recipient_id`, details.missing_fields); inline recipient missing fields (`recipient`).
 */
export async function preparePayout(
  core: Core,
  caller: Caller,
  req: PayoutRequest,
  opts: { paramPrefix?: string } = {},
): Promise<PreparedPayout> {
  const pre = opts.paramPrefix ?? '';
  const checked = prefixed(pre, () => checkSyntax(req));
  return prepareChecked(core, caller, req, pre, checked);
}

interface SyntaxChecked {
  channel: ChannelDefinition;
  sourceMinor?: bigint;
  destinationMinor?: bigint;
  reference: string | null;
  memo: string | null;
  message: string | null;
}

/** The checks that need no database (unprefixed params). */
function checkSyntax(req: PayoutRequest): SyntaxChecked {
  if (typeof req.channel !== 'string' || req.channel.length === 0) throw validationError('channel', 'channel is required');
  const channel = findChannel(req.channel);
  if (!channel) throw validationError('channel', `Unknown channel '${req.channel}'; GET /channels lists the channels`);

  const hasId = isGiven(req.recipientId);
  const hasInline = isGiven(req.recipient);
  if (hasId && hasInline) throw validationError('recipient', 'Give exactly one of recipient_id or recipient, not both');
  if (!hasId && !hasInline) throw validationError('recipient_id', 'recipient_id or recipient is required');
  if (hasId && (typeof req.recipientId !== 'string' || req.recipientId.length === 0)) {
    throw validationError('recipient_id', 'recipient_id must be a non-empty string');
  }

  const hasSource = isGiven(req.sourceAmount);
  const hasDest = isGiven(req.destinationAmount);
  if (hasSource && hasDest) {
    throw validationError('destination_amount', 'Give exactly one of source_amount or destination_amount, not both');
  }
  if (!hasSource && !hasDest && !isGiven(req.quoteId)) {
    throw validationError('source_amount', 'source_amount or destination_amount is required');
  }
  const sourceMinor = hasSource ? parseAmountParam(req.sourceAmount, USDC, 'source_amount') : undefined;
  const destinationMinor = hasDest ? parseAmountParam(req.destinationAmount, channel.currency, 'destination_amount') : undefined;

  const reference = optionalText(req.reference, 'reference', MAX_REFERENCE_LENGTH);
  const memo = optionalText(req.memo, 'memo', MAX_MEMO_LENGTH);
  const message = optionalText(req.message, 'message', MAX_MESSAGE_LENGTH);
  if (message !== null && channel.id !== 'claim_link') {
    throw validationError('message', `message is shown to a claim link's recipient; channel ${channel.id} does not take one`);
  }
  if (isGiven(req.quoteId) && (typeof req.quoteId !== 'string' || req.quoteId.length === 0)) {
    throw validationError('quote_id', 'quote_id must be a non-empty string');
  }
  return { channel, sourceMinor, destinationMinor, reference, memo, message };
}

async function prepareChecked(
  core: Core,
  caller: Caller,
  req: PayoutRequest,
  pre: string,
  s: SyntaxChecked,
): Promise<PreparedPayout> {
  const { channel } = s;
  const p = (name: string) => `${pre}${name}`;

  await freshPausedChannels(core); // a runtime pause reaches acceptance within its TTL
  if (caller.environment === 'live') await freshRateCache(core);
  if (statusFor(core, caller, channel) !== 'live') {
    const noRate = missingLiveRate(core, caller, channel);
    if (noRate && railStatusFor(core, caller, channel) === 'live') throw rateUnavailable(channel.id, noRate, p('channel'));
    throw new ApiError(
      400,
      'channel_unavailable',
      caller.environment === 'live'
        ? `Channel ${channel.id} is paused in the live environment: ${livePauseReason(core, channel)}`
        : `Channel ${channel.id} is paused while a provider on the rail is degraded; try again later`,
      p('channel'),
    );
  }

  let recipientId: string | null = null;
  let recipientType: RecipientType;
  let recipientDetails: Record<string, unknown>;
  if (isGiven(req.recipientId)) {
    const id = req.recipientId as string;
    const r = await scoped(core.db, caller)
      .selectFrom('recipients')
      .select(['id', 'type', 'details', 'status', 'missing_fields', 'channels'])
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!r) throw notFound('recipient', id, p('recipient_id'));
    const type = r.type as RecipientType;
    if (!channelAcceptsRecipientType(channel, type)) {
      const accepted = channel.id === 'claim_link' ? 'phone or email' : channel.recipientType;
      throw validationError(p('recipient_id'), `Recipient ${id} is a ${type} recipient; channel ${channel.id} pays ${accepted} recipients`);
    }
    if (r.status !== 'ready') {
      throw new ApiError(
        422,
        'recipient_not_ready',
        `Recipient ${id} is missing fields: ${r.missing_fields.join(', ')}`,
        p('recipient_id'),
        { missing_fields: r.missing_fields },
      );
    }
    if (!r.channels.includes(channel.id)) {
      throw new ApiError(
        422,
        'recipient_not_ready',
        `Recipient ${id} cannot be paid on ${channel.id}; it can be paid on: ${r.channels.join(', ') || 'no channel'}`,
        p('recipient_id'),
      );
    }
    recipientId = r.id;
    recipientType = type;
    recipientDetails = r.details;
  } else {
    const v = prefixed(pre, () => validateInlineRecipient(req.recipient as InlineRecipient, channel));
    recipientType = v.type;
    recipientDetails = v.details;
  }

  // A live claim link is sent to the recipient's phone or e-mail: that kind needs a live provider.
  if (caller.environment === 'live' && channel.id === CLAIM_LINK) {
    const problem = claimLinkLiveProblem(core, channel.currency, recipientType === 'email' ? 'email' : 'phone');
    if (problem) {
      const param = isGiven(req.recipientId) ? p('recipient_id') : p(recipientType === 'email' ? 'recipient.address' : 'recipient.number');
      throw new ApiError(400, 'channel_unavailable', `Channel ${CLAIM_LINK} cannot reach this ${recipientType} recipient in the live environment: ${problem}`, param);
    }
  }

  // A live payout: what its rail cannot carry (a bank file, a partner's account requirements) is refused now, not at the cut-off.
  if (caller.environment === 'live') {
    const problem = railCarriageProblem(channel.rail, recipientDetails, s.reference, channel.id);
    if (problem) {
      const param = problem.field === 'reference' ? p('reference') : isGiven(req.recipientId) ? p('recipient_id') : p(`recipient.${problem.field}`);
      if (problem.status === 422) throw new ApiError(422, 'recipient_not_ready', problem.message, param);
      throw validationError(param, problem.message);
    }
  }

  // Price: the quote's, or now at the mid-market rate.
  let price: Price;
  let quoteId: string | null = null;
  if (isGiven(req.quoteId)) {
    const id = req.quoteId as string;
    const q = await scoped(core.db, caller)
      .selectFrom('quotes')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    if (!q) throw notFound('quote', id, p('quote_id'));
    if (q.channel !== channel.id) {
      throw validationError(p('quote_id'), `Quote ${id} prices channel ${q.channel}, not ${channel.id}`);
    }
    if (q.expires_at.getTime() <= core.now().getTime()) {
      throw new ApiError(410, 'quote_expired', `Quote ${id} expired at ${q.expires_at.toISOString()}; create a new quote`, p('quote_id'));
    }
    if (s.sourceMinor !== undefined && s.sourceMinor !== q.source_amount) {
      throw validationError(p('source_amount'), `source_amount must match quote ${id} (${formatAmount(q.source_amount, USDC)}) or be left out`);
    }
    if (s.destinationMinor !== undefined && s.destinationMinor !== q.destination_amount) {
      throw validationError(
        p('destination_amount'),
        `destination_amount must match quote ${id} (${formatAmount(q.destination_amount, q.destination_currency)}) or be left out`,
      );
    }
    quoteId = q.id;
    price = {
      sourceAmount: q.source_amount,
      sourceCurrency: 'USDC',
      destinationAmount: q.destination_amount,
      destinationCurrency: q.destination_currency,
      rate: q.rate,
      fees: { provider: q.fee_provider, service: q.fee_service, fxSpread: q.fee_fx_spread, total: q.fee_total },
      debitTotal: q.source_amount + q.fee_total,
      ...livePricingOf(q),
    };
  } else {
    price = prefixed(pre, () =>
      priceOf({
        channel,
        ...pricingRate(core, caller, channel, p('channel')),
        ...(s.sourceMinor !== undefined ? { sourceAmount: s.sourceMinor } : { destinationAmount: s.destinationMinor }),
        noMaximum: req.noMaximum === true,
      }),
    );
  }

  return {
    channel,
    recipientId,
    recipientType,
    recipientDetails,
    quoteId,
    price,
    reference: s.reference,
    memo: s.memo,
    message: s.message,
    ...(caller.environment === 'live' ? railLatestArrival(core, channel.rail, core.now()) : {}),
  };
}
