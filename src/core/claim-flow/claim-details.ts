/**
 * What the claim page collects before the payout's `claim` Update (docs/notifications.md "When
 * claim_link is live", docs/screening.md "Identity at claim time"): a live route's account fields,
 * and on a channel that asks identity, the claimant's identity and the account's holder name.
 * Everything is validated before anything is stored, so a refused form changes nothing.
 */
import { CHANNELS, type ChannelDefinition, channelCoversCountry } from '../../domain/channels';
import type { ClaimLink } from '../../domain/claim-links';
import { type InlineRecipient, phoneCountry, validateInlineRecipient } from '../../domain/recipients';
import type { Core } from '../context';
import { chooseClaimRoute } from '../payouts/claim-destinations';
import { asksIdentity, recordClaimantIdentity, validateClaimantIdentity } from './claimant-identity';

const IDENTITY_FIELD_NAMES = new Set(['full_name', 'date_of_birth', 'national_id_kind', 'national_id']);

/**
 * The channel whose account and identity fields a sandbox `bank_transfer` claim asks: the bank
 * channel asking identity in the country of the payout's phone recipient; null for others (an
 * e-mail recipient, a country whose channel asks none).
 */
export function sandboxIdentityChannel(link: Pick<ClaimLink, 'environment' | 'payout'>): ChannelDefinition | null {
  const { recipient } = link.payout;
  if (link.environment !== 'sandbox' || recipient.type !== 'phone' || typeof recipient.details.number !== 'string') return null;
  const country = phoneCountry(recipient.details.number);
  if (!country) return null;
  return CHANNELS.find((c) => c.recipientType === 'bank_account' && channelCoversCountry(c, country) && asksIdentity(c)) ?? null;
}

/**
 * Validates and stores the details of a claim of `link` with `method` and `form` (wire field
 * names, `routeId` a live route among `liveRoutes`): live, the route (src/core/payouts/claim-destinations.ts);
 * on a channel asking identity, the claimant's identity (param the field). Throws ApiError 400
 * validation_error or 422 recipient_not_ready, having stored nothing.
 */
export async function submitClaimDetails(
  core: Core,
  link: ClaimLink,
  method: string,
  routeId: string,
  form: Record<string, string>,
  liveRoutes: readonly ChannelDefinition[],
): Promise<void> {
  const payout = { id: link.payout.id, businessId: link.businessId, environment: link.environment };
  // Identity fields never reach the account details (stored in clear in payout_claim_destinations).
  const account = Object.fromEntries(Object.entries(form).filter(([k]) => !IDENTITY_FIELD_NAMES.has(k)));
  if (link.environment === 'live') {
    const channel = liveRoutes.find((c) => c.id === routeId);
    const identity = channel && asksIdentity(channel) ? validateClaimantIdentity(channel, form) : null;
    const route = await chooseClaimRoute(core, link.payout, liveRoutes, routeId, account);
    if (identity && channel) await recordClaimantIdentity(core, payout, channel, identity, String(route.recipientDetails.holder_name ?? ''));
    return;
  }
  const channel = method === 'bank_transfer' ? sandboxIdentityChannel(link) : null;
  if (!channel) return;
  const { details } = validateInlineRecipient({ ...account, type: channel.recipientType } as InlineRecipient, channel);
  const identity = validateClaimantIdentity(channel, form);
  await recordClaimantIdentity(core, payout, channel, identity, String(details.holder_name ?? ''));
}
