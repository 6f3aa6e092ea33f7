/**
 * Where a live claim-link payout is paid out (docs/notifications.md "When claim_link is live"). The
 * only writer of `payout_claim_destinations`.
 */
import { findChannel, type ChannelDefinition } from '../../domain/channels';
import { ApiError, validationError } from '../../domain/errors';
import { type InlineRecipient, validateInlineRecipient } from '../../domain/recipients';
import type { Db } from '../../db/schema';
import { statusFor } from '../catalog';
import { CLAIM_LINK, liveClaimRoutes } from '../claim-routes';
import type { Caller, Core } from '../context';
import { railCarriageProblem, refreshRailHealth } from '../rails/rail-adapters';
import type { PayoutRow } from './rows';
import type { Payout } from '../../domain/payouts';

/** The delivery route of a payout: the catalog channel and rail its rail instruction names, and the recipient fields it carries. */
export interface DeliveryRoute {
  channel: string;
  rail: string;
  recipientDetails: Record<string, unknown>;
}

/** The payout columns a route is derived from. */
type RoutedPayout = Pick<PayoutRow, 'environment' | 'channel' | 'rail' | 'recipient_details'>;

/** The live routes the claim page of a payout in `currency` offers now (checks rail health first if unchecked). */
export async function offeredClaimRoutes(core: Core, caller: Caller, currency: string): Promise<ChannelDefinition[]> {
  const routes = liveClaimRoutes(core, currency);
  const live = () => routes.filter((c) => statusFor(core, caller, c) === 'live');
  const now = live();
  if (now.length === routes.length) return now;
  await refreshRailHealth(core);
  return live();
}

/**
 * Validates the recipient's choice of route `channelId` with `fields` (the channel's requirement
 * fields, wire names) for live claim-link payout `payout` and stores it once (a payout keeps the
 * first route stored; a later choice is ignored). Returns the stored route.
 * Throws ApiError 400 validation_error: `channel` (not one of `offered`), `recipient.<field>`
 * (invalid value, or one the rail cannot carry); 422 recipient_not_ready (`recipient`, missing fields).
 */
export async function chooseClaimRoute(
  core: Core,
  payout: Pick<Payout, 'id' | 'destination' | 'reference'>,
  offered: readonly ChannelDefinition[],
  channelId: string,
  fields: Record<string, string>,
): Promise<DeliveryRoute> {
  const channel = offered.find((c) => c.id === channelId);
  if (!channel || channel.currency !== payout.destination.currency) throw validationError('channel', `Choose one of: ${offered.map((c) => c.id).join(', ') || 'none is available now'}`);
  const { details } = validateInlineRecipient({ ...fields, type: channel.recipientType } as InlineRecipient, channel);
  const problem = railCarriageProblem(channel.rail, details, payout.reference, channel.id);
  if (problem) {
    if (problem.status === 422) throw new ApiError(422, 'recipient_not_ready', problem.message, `recipient.${problem.field}`);
    throw validationError(`recipient.${problem.field}`, problem.message);
  }
  await core.db
    .insertInto('payout_claim_destinations')
    .values({ payout_id: payout.id, channel: channel.id, rail: channel.rail, details: JSON.stringify(details) })
    .onConflict((oc) => oc.column('payout_id').doNothing())
    .execute();
  return (await claimDestination(core.db, payout.id))!;
}

/** The route stored for `payoutId`, or undefined. */
export async function claimDestination(db: Db, payoutId: string): Promise<DeliveryRoute | undefined> {
  const r = await db.selectFrom('payout_claim_destinations').select(['channel', 'rail', 'details']).where('payout_id', '=', payoutId).executeTakeFirst();
  return r ? { channel: r.channel, rail: r.rail, recipientDetails: r.details } : undefined;
}

/** The route a payout is delivered on: its own, or for a live claim-link payout the claimed one. */
export async function deliveryRoute(core: Core, payoutId: string, payout: RoutedPayout): Promise<DeliveryRoute> {
  const own = { channel: payout.channel, rail: payout.rail, recipientDetails: payout.recipient_details };
  if (payout.environment !== 'live' || payout.channel !== CLAIM_LINK) return own;
  const claimed = await claimDestination(core.db, payoutId);
  return claimed && findChannel(claimed.channel) ? claimed : own;
}
