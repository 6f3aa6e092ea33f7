/**
 * The payout partner rail over the Wise Platform API (docs/rails.md "Payout partner"). An attempt
 * is recorded before anything is sent (EndToEndId = its customerTransactionId), then gets a
 * recipient account, a quote, a transfer and its funding, each id recorded as soon as known so a
 * retry continues where the last stopped; the partner answers a repeated customerTransactionId
 * with the first transfer. Webhooks and polls become rail events `wise:<transfer id>:<state>`,
 * recorded once in any order; the state is the rail reason code.
 */
import { createHash, verify } from 'node:crypto';
import { formatAmount } from '../../domain/money';
import type { ConfiguredRail, NewRailEvent, RailAdapter, RailFailure, RailHost, RailInstructionRecord, RailModule, RailSubmitResult, RailWebhookResult } from '../adapter';
import { RailError } from '../adapter';
import { type PartnerJson, JsonNumber, parseJsonExact, wiseClient, type WiseClient } from './client';
import { WISE_RAIL, type WiseRailConfig, wiseRailConfig } from './config';
import { WISE_ROUTES, wiseAccountOf, wiseRouteFor, wiseRouteOf } from './routes';
import { WISE_SETTINGS } from './settings';

/** Transfer states in order (a lower state after a higher one is stale). */
export const WISE_STATE_RANK: Readonly<Record<string, number>> = {
  incoming_payment_waiting: 1,
  incoming_payment_initiated: 2,
  processing: 3,
  funds_converted: 4,
  outgoing_payment_sent: 5,
  cancelled: 6,
  bounced_back: 6,
  funds_refunded: 7,
  charged_back: 7,
};

/** States after which the partner will not move the money again (the audit's final states). */
export const WISE_FINAL_STATES: ReadonlySet<string> = new Set(['outgoing_payment_sent', 'cancelled', 'bounced_back', 'funds_refunded', 'charged_back']);

const UNDELIVERED = new Set(['cancelled', 'bounced_back', 'funds_refunded', 'charged_back']);

/** A UUID (version 5 layout) from SHA-1 over payout id and attempt: the same attempt asks for the same transfer. */
export function wiseCustomerTransactionId(payoutId: string, attempt: number): string {
  const h = createHash('sha1').update(`payouts:wise:${payoutId}:${attempt}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function wiseFailure(type: 'rejected' | 'returned', code: string | null): RailFailure {
  const state = code ?? 'unknown';
  if (type === 'returned') {
    return { failureCode: 'refunded_by_provider', message: `The payout partner reports the money came back after it was sent (${state})`, retryable: false, railReasonCode: state };
  }
  if (state === 'bounced_back') return { failureCode: 'invalid_destination', message: 'The recipient bank refused the payment (partner: bounced_back)', retryable: false, railReasonCode: state };
  if (state === 'cancelled') return { failureCode: 'provider_declined', message: 'The payout partner cancelled the transfer', retryable: false, railReasonCode: state };
  return { failureCode: 'provider_declined', message: `The payout partner did not deliver the transfer (${state})`, retryable: false, railReasonCode: state };
}

const s = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);

function quoteFee(q: PartnerJson): string | null {
  const options = Array.isArray(q.paymentOptions) ? (q.paymentOptions as PartnerJson[]) : [];
  const balance = options.find((o) => o.payIn === 'BALANCE' && !o.disabled) ?? options[0];
  const fee = (balance?.fee ?? q.fee) as PartnerJson | string | undefined;
  return typeof fee === 'object' && fee ? s(fee.total) : s(fee);
}

/** Records partner state `state` of a transfer once (`wise:<transfer id>:<state>`); the instruction moves forward only. Whether it was new. */
async function recordState(host: RailHost, transferId: string, state: string, occurredAt: Date | null, details: Record<string, unknown>): Promise<boolean> {
  return host.transaction(async (tx) => {
    const i = await tx.instructionByDetail(WISE_RAIL, 'transfer_id', transferId, true);
    // Read after the lock: a transfer's events are dispatched in the order their states were recorded.
    const now = host.now();
    const sent = i?.status === 'settled' || i?.status === 'returned' || i?.details?.sent === 'true';
    const type: NewRailEvent['type'] = state === 'outgoing_payment_sent' ? 'settled' : UNDELIVERED.has(state) ? (sent ? 'returned' : 'rejected') : 'accepted';
    const event: NewRailEvent = {
      id: `${WISE_RAIL}:${transferId}:${state}`,
      rail: WISE_RAIL,
      railFileId: `${WISE_RAIL}:${transferId}`,
      type,
      payoutId: i?.payoutId ?? null,
      attempt: i?.attempt ?? null,
      depositId: null,
      endToEndId: i?.endToEndId ?? null,
      uetr: null,
      reasonCode: type === 'rejected' || type === 'returned' ? state : null,
      occurredAt,
      details: { source: 'wise', transferId, state, ...details },
    };
    const ids = await tx.recordEvents([event], now);
    if (ids.length === 0 || !i) return ids.length > 0;
    const key = { payoutId: i.payoutId, attempt: i.attempt };
    const known = WISE_STATE_RANK[i.details?.partner_state ?? ''] ?? 0;
    if ((WISE_STATE_RANK[state] ?? 0) >= known) await tx.updateInstructionDetails(key, { partner_state: state, ...(type === 'settled' ? { sent: 'true' } : {}) }, now);
    else if (type === 'settled') await tx.updateInstructionDetails(key, { sent: 'true' }, now);
    if (type !== 'accepted') await tx.advanceInstruction(key, type === 'settled' ? 'settled' : type, now);
    if (type === 'returned') host.metrics.railReturns.inc({ rail: WISE_RAIL, code: state, late: 'false' });
    return true;
  });
}

function wiseAdapter(config: WiseRailConfig, host: RailHost, api: WiseClient): RailAdapter {
  const profile = config.profileId;
  return {
    name: 'wise_api',
    capabilities: {
      rails: WISE_ROUTES.map((r) => r.rail),
      currencies: WISE_ROUTES.map((r) => r.currency),
      mode: 'instant',
      answers: 'later',
      cutOffs: [],
      returnsAfterSettlement: true,
      returnWindowMs: config.returnWindowMs,
    },
    async submit(instruction): Promise<RailSubmitResult> {
      const reject = (message: string): RailSubmitResult => ({ outcome: 'rejected', failureCode: 'invalid_destination', message, retryable: false, retryAfterMs: 0, references: {} });
      const route = wiseRouteFor(instruction.rail, instruction.currency);
      if (!route) return reject(`The payout partner has no route for ${instruction.channel} (${instruction.currency})`);
      const mapped = wiseAccountOf(route, { ...instruction.creditor.account, holder_name: instruction.creditor.name, recipient_kind: instruction.creditor.kind });
      if ('field' in mapped) return reject(`The payout partner cannot pay this recipient: ${mapped.message}`);
      const customerTransactionId = wiseCustomerTransactionId(instruction.payoutId, instruction.attempt);
      const key = { payoutId: instruction.payoutId, attempt: instruction.attempt };
      // Recorded before anything is sent.
      const row = await host.store.queueInstruction(
        {
          payoutId: instruction.payoutId,
          attempt: instruction.attempt,
          rail: WISE_RAIL,
          businessId: instruction.businessId,
          endToEndId: customerTransactionId,
          uetr: null,
          traceNumber: null,
          details: { channel: instruction.channel, route: route.type },
          amountMinor: BigInt(instruction.amountMinor),
          currency: instruction.currency,
          creditorName: instruction.creditor.name,
          creditorIban: null,
          creditorBic: null,
          remittance: instruction.reference,
        },
        host.now(),
      );
      const d: Record<string, string> = { ...(row.details ?? {}) };
      const note = async (more: Record<string, string>) => {
        Object.assign(d, more);
        await host.store.updateInstructionDetails(key, more, host.now());
      };
      const accepted = (): RailSubmitResult => ({ outcome: 'accepted', references: { providerReference: d.transfer_id!, endToEndId: customerTransactionId } });
      if (row.status !== 'queued') {
        if (row.status === 'rejected' && d.fund_error) throw new RailError(`The partner balance could not fund the transfer: ${d.fund_error}`, true, 'provider_declined', `wise:${d.fund_error}`);
        return accepted();
      }
      if (!d.account_id) {
        const account = await api.post('/v1/accounts', { profile: new JsonNumber(profile), ...mapped.account });
        await note({ account_id: s(account.id)! });
      }
      if (!d.quote_id) {
        // Our amount is the target: the recipient gets exactly what the payout promised.
        const q = await api.post(`/v3/profiles/${profile}/quotes`, {
          sourceCurrency: config.balanceCurrency,
          targetCurrency: instruction.currency,
          targetAmount: new JsonNumber(formatAmount(BigInt(instruction.amountMinor), instruction.currency)),
          targetAccount: new JsonNumber(d.account_id!),
          payOut: 'BANK_TRANSFER',
          preferredPayIn: 'BALANCE',
        });
        await note({
          quote_id: s(q.id)!,
          partner_rate: s(q.rate) ?? '',
          partner_fee: quoteFee(q) ?? '',
          partner_source_amount: s(q.sourceAmount) ?? '',
          partner_source_currency: s(q.sourceCurrency) ?? config.balanceCurrency,
          partner_target_amount: s(q.targetAmount) ?? '',
        });
      }
      if (!d.transfer_id) {
        // An unknown outcome throws PartnerUnavailableError; asked again, the same customerTransactionId gets this transfer.
        const t = await api.post('/v1/transfers', {
          targetAccount: new JsonNumber(d.account_id!),
          quoteUuid: d.quote_id,
          customerTransactionId,
          details: { reference: (instruction.reference ?? '').slice(0, 35) },
        });
        await note({ transfer_id: s(t.id)!, partner_state: s(t.status) ?? 'incoming_payment_waiting', ...(s(t.rate) ? { partner_rate: s(t.rate)! } : {}) });
      }
      if (d.funded !== 'true') {
        const f = await api.post(`/v3/profiles/${profile}/transfers/${d.transfer_id}/payments`, { type: 'BALANCE' });
        if (f.status !== 'COMPLETED') {
          // Not funded: cancel the transfer so it can never move, and let the next attempt try again.
          const reason = s(f.errorCode) ?? 'not_funded';
          await api.put(`/v1/transfers/${d.transfer_id}/cancel`);
          await note({ fund_error: reason });
          await host.store.advanceInstruction(key, 'rejected', host.now());
          throw new RailError(`The partner balance could not fund the transfer: ${reason}`, true, 'provider_declined', `wise:${reason}`);
        }
        await note({ funded: 'true' });
      }
      await host.store.advanceInstruction(key, 'accepted', host.now());
      return accepted();
    },
    async status(references) {
      if (!references.providerReference) return null;
      const t = await api.get(`/v1/transfers/${references.providerReference}`);
      const state = s(t.status);
      if (!state) return null;
      const type = state === 'outgoing_payment_sent' ? 'settled' : UNDELIVERED.has(state) ? 'rejected' : 'accepted';
      return { id: `${WISE_RAIL}:${references.providerReference}:${state}`, type, references, at: host.now().toISOString(), ...(type === 'rejected' ? { railReasonCode: state } : {}) };
    },
    async health() {
      try {
        await api.get(`/v2/profiles/${profile}`);
        return 'working';
      } catch {
        return 'failing';
      }
    },
  };
}

/** One `transfers#state-change` webhook: 401 bad signature or `sent_at` outside the tolerance, 400 not a state change; a duplicate changes nothing. */
async function receiveWebhook(config: WiseRailConfig, host: RailHost, request: { headers: Record<string, string | undefined>; body: string }): Promise<RailWebhookResult> {
  const signature = request.headers['x-signature-sha256'];
  let valid = false;
  try {
    valid = !!signature && verify('RSA-SHA256', Buffer.from(request.body, 'utf8'), config.webhookPublicKey, Buffer.from(signature, 'base64'));
  } catch {
    valid = false;
  }
  if (!valid) return { outcome: 'refused', status: 401, code: 'invalid_signature', message: 'X-Signature-SHA256 is missing or does not verify with the partner public key' };
  let body: PartnerJson;
  try {
    body = parseJsonExact(request.body) as PartnerJson;
  } catch {
    return { outcome: 'refused', status: 400, code: 'invalid_body', message: 'the body is not JSON' };
  }
  const sentAt = new Date(String(body.sent_at ?? ''));
  if (Number.isNaN(sentAt.getTime()) || Math.abs(host.now().getTime() - sentAt.getTime()) > config.webhookToleranceMs) {
    return { outcome: 'refused', status: 401, code: 'replayed', message: 'sent_at is missing or outside the accepted window: refused as a replay' };
  }
  const data = (body.data ?? {}) as PartnerJson;
  const resource = (data.resource ?? {}) as PartnerJson;
  const transferId = s(resource.id);
  const state = s(data.current_state);
  if (body.event_type !== 'transfers#state-change' || resource.type !== 'transfer' || !transferId || !state) {
    return { outcome: 'refused', status: 400, code: 'unsupported_event', message: 'not a transfers#state-change event of a transfer' };
  }
  const occurred = new Date(String(data.occurred_at ?? ''));
  const recorded = await recordState(host, transferId, state, Number.isNaN(occurred.getTime()) ? null : occurred, {
    via: 'webhook',
    deliveryId: request.headers['x-delivery-id'] ?? null,
    previousState: s(data.previous_state),
    sentAt: sentAt.toISOString(),
  });
  return { outcome: 'accepted', recorded: recorded ? 1 : 0, duplicate: !recorded };
}

/** Asks for accepted transfers not moved for `webhookLateAfterMs` and sent ones within the return window every `returnPollIntervalMs` (docs/rails.md "Payout partner"). */
async function pollTransfers(config: WiseRailConfig, host: RailHost, api: WiseClient) {
  const now = host.now().getTime();
  const waiting: RailInstructionRecord[] = await host.store.instructionsWaiting(WISE_RAIL, ['accepted'], new Date(now - config.webhookLateAfterMs), 100);
  const sent: RailInstructionRecord[] =
    config.returnWindowMs > 0
      ? await host.store.instructionsWaiting(WISE_RAIL, ['settled'], new Date(now - config.returnPollIntervalMs), 100, new Date(now - config.returnWindowMs))
      : [];
  let events = 0;
  for (const i of [...waiting, ...sent]) {
    const id = i.details?.transfer_id;
    if (!id) continue;
    const t = await api.get(`/v1/transfers/${id}`);
    const state = s(t.status);
    if (!state) continue;
    if (await recordState(host, id, state, null, { via: 'poll' })) events++;
    else await host.store.updateInstructionDetails({ payoutId: i.payoutId, attempt: i.attempt }, { polled_at: host.now().toISOString() }, host.now());
  }
  return { files: 0, events, quarantined: 0, more: waiting.length === 100 || sent.length === 100 };
}

function configured(config: WiseRailConfig): ConfiguredRail {
  const api = wiseClient({ apiUrl: config.apiUrl, token: config.apiToken, timeoutMs: config.timeoutMs });
  return {
    pollIntervalMs: config.pollIntervalMs,
    adapter: (host) => wiseAdapter(config, host, api),
    poll: (host) => pollTransfers(config, host, api),
    receiveWebhook: (host, request) => receiveWebhook(config, host, request),
    partnerView: (d) => ({
      transfer_id: d.transfer_id ?? null,
      quote_id: d.quote_id ?? null,
      partner_state: d.partner_state ?? null,
      partner_rate: d.partner_rate || null,
      partner_fee: d.partner_fee || null,
      partner_source_amount: d.partner_source_amount || null,
      partner_source_currency: d.partner_source_currency ?? null,
    }),
  };
}

export const wiseRailModule: RailModule<typeof WISE_SETTINGS> = {
  id: WISE_RAIL,
  rail: WISE_RAIL,
  settings: WISE_SETTINGS,
  alsoServes: WISE_ROUTES.map((r) => r.rail),
  connect(config) {
    const r = wiseRailConfig(config);
    return r.config ? { rail: configured(r.config), missing: [] } : { rail: null, missing: r.missing };
  },
  failureOf: wiseFailure,
  carriageProblem(details, _reference, channel) {
    const route = wiseRouteOf(channel);
    if (!route) return null;
    const r = wiseAccountOf(route, details);
    return 'field' in r ? { field: r.field, message: r.message, status: 422 } : null;
  },
};
