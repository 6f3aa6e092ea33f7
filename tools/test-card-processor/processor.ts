/**
 * The test card processor (docs/getting-paid.md "Test card processor"): an HTTP server on 127.0.0.1
 * that the official `stripe` client talks to (`CARD_STRIPE_API_URL`), standing in for Stripe. Every
 * API request is FORWARDED to stripe-mock (tools/test-card-processor/stripe-mock.ts), which checks
 * its parameters against Stripe's OpenAPI document; a refusal (4xx) is answered as stripe-mock gave
 * it. stripe-mock keeps no state, so the answer is then made from this server's own state, rendered
 * over stripe-mock's own objects (so every field has Stripe's shape): Checkout Sessions, payment
 * intents, charges with their balance transaction (Stripe's fee, 2.9 % + 30 minor units, BigInt),
 * refunds and disputes. A repeated `Idempotency-Key` answers the first answer (other parameters
 * with the same key: 400 `idempotency_error`, as Stripe does).
 *
 * Endpoints with state: POST /v1/checkout/sessions (mode `payment`, one `price_data` line item),
 * GET /v1/checkout/sessions/{id} (`expand` of `payment_intent`, `.latest_charge`,
 * `.balance_transaction`), POST /v1/checkout/sessions/{id}/expire, POST /v1/refunds, GET of
 * /v1/payment_intents, /v1/charges, /v1/balance_transactions, /v1/refunds, /v1/disputes by id.
 * Any other API call is stripe-mock's answer. Every call needs `Authorization: Bearer <secret key>`.
 *
 * The checkout page, `GET /checkout/{session id}` (HTML, no script): the payer enters a card number
 * (or pays by bank debit) and is sent (303) to the session's `success_url`; a link goes to
 * `cancel_url`. Stripe's documented test numbers decide the outcome:
 *
 * | number | outcome |
 * |---|---|
 * | card 4242424242424242 | paid: `checkout.session.completed` (payment_status `paid`) |
 * | card 4000000000000002 | declined `card_declined`: the page says so, the session stays open, no event |
 * | card 4000000000009995 | declined `card_declined` / `insufficient_funds` (as above) |
 * | card 4000000000005126 | paid; a later refund of it starts `succeeded` and turns `failed` (`refund.updated`, `refund.failed`), as Stripe's card of that number does |
 * | any other card number | declined (a non-test card in test mode), or `incorrect_number` when it fails the Luhn check |
 * | bank debit 000123456789 | `checkout.session.completed` (payment_status `unpaid`, the payment `processing`), then `checkout.session.async_payment_succeeded` |
 * | bank debit 000111111113 | `checkout.session.completed` (`unpaid`), then `checkout.session.async_payment_failed` |
 *
 * Tests and demos drive it too: `pay(sessionId, instrument)`, `dispute(paymentIntentId, { outcome })`
 * (`charge.dispute.created`, `charge.dispute.funds_withdrawn` with the dispute fee of 1500 minor
 * units, `charge.dispute.updated` under review, then for `won` `charge.dispute.funds_reinstated`
 * (the amount, not the fee) and `charge.dispute.closed` won, for `lost` `charge.dispute.closed`
 * lost), `expire(sessionId)`; an open session also expires by this server's clock at its
 * `expires_at` (`checkout.session.expired`). A refund made through the API succeeds at once
 * (`refund.created` and `charge.refunded`), except of a 4000000000005126 payment (above).
 *
 * Events are Stripe Event objects signed with the official client's
 * `stripe.webhooks.generateTestHeaderString` (a fresh `Stripe-Signature` per attempt), POSTed to a
 * webhook URL or handed to a `deliver` function (tests call the app in process), retried on a
 * non-2xx answer (5 attempts, 200 ms doubling). Delivery modes, like the test partner's magic words,
 * are a word in the line item's name (the session's description) or the `delivery` option of
 * `pay`/`dispute`:
 *
 * | word | delivery |
 * |---|---|
 * | `TWICE` | every event is delivered twice |
 * | `SHUFFLE` | the events of one payment or dispute are held, then delivered newest first |
 * | `SILENT` | no event is delivered (only asking, `GET` the session, finds the state) |
 * | `LATE` | each event is delivered `lateMs` after it happened (signed then, created when it happened) |
 *
 * With `logDir`, every API request (method, path, parameters, status, answer) and every event
 * delivery (headers, body, the answers) is written there as numbered JSON files, beside the webhook
 * signing secret (`webhook-signing-secret.txt`).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Stripe from 'stripe';
import { startStripeMock, type StripeMock } from './stripe-mock';

/** Stripe's documented test numbers the checkout page knows (see the module docstring). */
export const TEST_CARDS = {
  succeeds: '4242424242424242',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  refundFails: '4000000000005126',
} as const;
/** US bank account numbers of the bank-debit button (Stripe's test numbers for ACH debits). */
export const TEST_BANK_ACCOUNTS = { succeeds: '000123456789', fails: '000111111113' } as const;
/** Stripe's card fee: 2.9 % (29 per mille) plus 30 minor units; the dispute fee, minor units. */
export const TEST_CARD_FEE = { perMille: 29n, flatMinor: 30n, disputeMinor: 1500n };

/** Stripe's fee on a charge of `amount` minor units: 2.9 % rounded half up, plus 30. */
export function testCardFee(amount: bigint): bigint {
  return (amount * TEST_CARD_FEE.perMille + 500n) / 1000n + TEST_CARD_FEE.flatMinor;
}

/** How events reach the webhook (see the module docstring). */
export type TestCardDelivery = 'normal' | 'twice' | 'shuffle' | 'silent' | 'late';
/** Where events go: an http URL, or a function that delivers one and answers its HTTP status. */
export type TestCardWebhookTarget = string | ((headers: Record<string, string>, body: string) => Promise<number>);
/** What pays: a card number, or a bank debit from a US bank account number. */
export type TestCardInstrument = string | { card: string } | { bankAccount: string };

/** The outcome of {@link TestCardProcessor.pay}. */
export interface TestCardPayResult {
  outcome: 'succeeded' | 'processing' | 'declined';
  /** Stripe's error code and decline code of a declined card (`card_declined`, `insufficient_funds`). */
  code: string | null;
  declineCode: string | null;
  message: string | null;
  /** Where the page sends the payer (the success URL), when not declined. */
  redirect: string | null;
  paymentIntentId: string | null;
}

/** One event as sent: its body, and the HTTP status of each delivery attempt (null: no answer). */
export interface TestCardEvent {
  id: string;
  type: string;
  body: string;
  /** The object id the event is about. */
  objectId: string;
  attempts: Array<number | null>;
  delivered: boolean;
}

/** A session as the processor keeps it. */
export interface TestCardSession {
  id: string;
  amount: bigint;
  currency: string;
  description: string;
  clientReferenceId: string | null;
  metadata: Record<string, string>;
  paymentIntentMetadata: Record<string, string>;
  successUrl: string;
  cancelUrl: string;
  created: number;
  expiresAt: number;
  status: 'open' | 'complete' | 'expired';
  paymentStatus: 'paid' | 'unpaid';
  paymentIntentId: string | null;
  /** The line item's magic word's delivery mode, or null. */
  delivery: TestCardDelivery | null;
}

/** Options of {@link startTestCardProcessor}. */
export interface TestCardProcessorOptions {
  /** A running stripe-mock (`http://host:port`); by default one is started (and stopped by close). */
  stripeMockUrl?: string;
  secretKey?: string;
  webhookSecret?: string;
  webhook?: TestCardWebhookTarget;
  logDir?: string;
  /** The processor's clock: created times, expiry, signature timestamps (default: the real clock). */
  clock?: () => Date;
  /** Milliseconds between the steps of an async payment, a dispute or a failing refund (default 100). */
  stepMs?: number;
  /** Delay of each `LATE` delivery (default 2 s). */
  lateMs?: number;
  /** The delivery mode of every event without a magic word (default `normal`). */
  delivery?: TestCardDelivery;
  /** Attempts of one delivery and the first retry's delay, doubling (default 5 and 200 ms). */
  retry?: { attempts?: number; delayMs?: number };
}

/** A running test card processor. */
export interface TestCardProcessor {
  url: string;
  /** The service's configuration for it. */
  env: { CARD_STRIPE_SECRET_KEY: string; CARD_STRIPE_WEBHOOK_SECRET: string; CARD_STRIPE_API_URL: string };
  stripeMockUrl: string;
  /** Pays an open session as the checkout page does. */
  pay(sessionId: string, instrument: TestCardInstrument, opts?: { delivery?: TestCardDelivery }): Promise<TestCardPayResult>;
  /** Disputes the charge of a paid payment intent; resolves once the dispute is closed (its events sent or queued). */
  dispute(paymentIntentId: string, opts: { outcome: 'won' | 'lost'; reason?: string; delivery?: TestCardDelivery }): Promise<{ disputeId: string }>;
  /** Expires an open session now (`checkout.session.expired`). */
  expire(sessionId: string): Promise<void>;
  sessions(): TestCardSession[];
  /** Every event made, in order, with its delivery attempts. */
  events(): TestCardEvent[];
  setWebhookTarget(target: TestCardWebhookTarget | null): void;
  /** The `Stripe-Signature` header of `body` at `timestamp` (unix seconds; default now), to forge and replay in tests. */
  sign(body: string, timestamp?: number): string;
  /** Resolves once no step, delivery or retry is pending. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

interface PaymentIntentRec {
  id: string;
  sessionId: string;
  amount: bigint;
  currency: string;
  status: 'processing' | 'succeeded' | 'requires_payment_method';
  metadata: Record<string, string>;
  chargeId: string | null;
  method: 'card' | 'us_bank_account';
  instrument: string;
  created: number;
  lastError: { code: string; message: string } | null;
}
interface ChargeRec {
  id: string;
  paymentIntentId: string;
  amount: bigint;
  currency: string;
  refunded: bigint;
  disputed: boolean;
  balanceTransactionId: string;
  metadata: Record<string, string>;
  method: 'card' | 'us_bank_account';
  instrument: string;
  created: number;
  refundIds: string[];
}
interface BalanceTransactionRec {
  id: string;
  amount: bigint;
  fee: bigint;
  currency: string;
  source: string;
  type: 'charge' | 'payment' | 'adjustment' | 'refund' | 'payment_failure_refund';
  reportingCategory: string;
  description: string | null;
  created: number;
  feeDescription: string;
}
interface RefundRec {
  id: string;
  paymentIntentId: string;
  chargeId: string;
  amount: bigint;
  currency: string;
  status: 'pending' | 'succeeded' | 'failed';
  failureReason: string | null;
  metadata: Record<string, string>;
  created: number;
}
interface DisputeRec {
  id: string;
  paymentIntentId: string;
  chargeId: string;
  amount: bigint;
  currency: string;
  status: string;
  reason: string;
  balanceTransactionIds: string[];
  created: number;
}

type Json = Record<string, unknown>;
const ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);
const DELIVERY_WORDS: Array<[string, TestCardDelivery]> = [
  ['TWICE', 'twice'],
  ['SHUFFLE', 'shuffle'],
  ['SILENT', 'silent'],
  ['LATE', 'late'],
];

/** `amount` minor units of `currency` as a decimal string (BigInt). */
function decimal(amount: bigint, currency: string): string {
  const exp = ZERO_DECIMAL.has(currency.toUpperCase()) ? 0 : THREE_DECIMAL.has(currency.toUpperCase()) ? 3 : 2;
  if (exp === 0) return amount.toString();
  const unit = 10n ** BigInt(exp);
  return `${amount / unit}.${(amount % unit).toString().padStart(exp, '0')}`;
}
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const luhn = (n: string) =>
  /^[0-9]{12,19}$/.test(n) &&
  [...n].reverse().reduce((sum, d, i) => {
    const v = Number(d) * (i % 2 ? 2 : 1);
    return sum + (v > 9 ? v - 9 : v);
  }, 0) %
    10 ===
    0;
const num = (v: bigint) => Number(v);
const newId = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
/** A Stripe API error body. */
const stripeError = (type: string, message: string, extra: Json = {}) => ({ error: { type, message, ...extra } });

/** The values of a form (or query) as Stripe's bracket keys: `metadata[a]` of `prefix` `metadata` -> `{ a }`. */
function bracketMap(params: URLSearchParams, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = new RegExp(`^${prefix.replace(/[[\]]/g, '\\$&')}\\[([^\\]]+)\\]$`);
  for (const [k, v] of params) {
    const m = re.exec(k);
    if (m) out[m[1]!] = v;
  }
  return out;
}
const expandOf = (params: URLSearchParams) => [...params].filter(([k]) => /^expand\[[0-9]*\]$/.test(k)).map(([, v]) => v);
/** The expansions under `field`: null when `field` is not expanded, else the paths below it. */
function under(expand: string[], field: string): string[] | null {
  let hit = false;
  const rest: string[] = [];
  for (const e of expand) {
    if (e === field) hit = true;
    else if (e.startsWith(`${field}.`)) {
      hit = true;
      rest.push(e.slice(field.length + 1));
    }
  }
  return hit ? rest : null;
}

/** Starts a test card processor on 127.0.0.1 (a free port), with its own stripe-mock unless given one. */
export async function startTestCardProcessor(options: TestCardProcessorOptions = {}): Promise<TestCardProcessor> {
  const clock = options.clock ?? (() => new Date());
  const seconds = () => Math.floor(clock().getTime() / 1000);
  const stepMs = options.stepMs ?? 100;
  const secretKey = options.secretKey ?? `sk_test_${randomBytes(12).toString('hex')}`;
  const webhookSecret = options.webhookSecret ?? `whsec_${randomBytes(24).toString('base64url')}`;
  const attempts = options.retry?.attempts ?? 5;
  const retryMs = options.retry?.delayMs ?? 200;
  const ownMock: StripeMock | null = options.stripeMockUrl ? null : await startStripeMock();
  const mockUrl = options.stripeMockUrl ?? ownMock!.url;
  // Only for its webhook helpers (generateTestHeaderString); it calls no API.
  const signer = new Stripe('sk_test_123');
  const sign = (body: string, timestamp?: number) => signer.webhooks.generateTestHeaderString({ payload: body, secret: webhookSecret, timestamp: timestamp ?? seconds() });

  if (options.logDir) {
    mkdirSync(options.logDir, { recursive: true });
    writeFileSync(join(options.logDir, 'webhook-signing-secret.txt'), `${webhookSecret}\n`);
  }
  let logged = 0;
  const log = (kind: string, record: unknown) => {
    if (!options.logDir) return;
    logged++;
    writeFileSync(join(options.logDir, `${String(logged).padStart(4, '0')}-${kind}.json`), `${JSON.stringify(record, null, 2)}\n`);
  };

  // stripe-mock's own objects, whose fields ours are rendered over (every field in Stripe's shape).
  const mockGet = async (path: string): Promise<Json> => {
    const r = await fetch(`${mockUrl}${path}`, { headers: { authorization: `Bearer ${secretKey}` } });
    if (!r.ok) throw new Error(`stripe-mock GET ${path}: ${r.status}`);
    return (await r.json()) as Json;
  };
  const [tPaymentIntent, tCharge, tBalanceTransaction, tRefund, tDispute] = await Promise.all(
    ['/v1/payment_intents/pi_template', '/v1/charges/ch_template', '/v1/balance_transactions/txn_template', '/v1/refunds/re_template', '/v1/disputes/dp_template'].map(mockGet),
  );

  const sessions = new Map<string, TestCardSession & { base: Json }>();
  const intents = new Map<string, PaymentIntentRec>();
  const charges = new Map<string, ChargeRec>();
  const balanceTransactions = new Map<string, BalanceTransactionRec>();
  const refunds = new Map<string, RefundRec>();
  const disputes = new Map<string, DisputeRec>();
  const idempotent = new Map<string, { path: string; raw: string; status: number; body: unknown }>();
  const sent: TestCardEvent[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const pending = new Set<Promise<unknown>>();
  let target: TestCardWebhookTarget | null = options.webhook ?? null;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });
  const track = <T>(p: Promise<T>): Promise<T> => {
    pending.add(p);
    void p.finally(() => pending.delete(p)).catch(() => undefined);
    return p;
  };

  // ---- rendering: our state over stripe-mock's objects -------------------------------------------
  const renderBalanceTransaction = (b: BalanceTransactionRec): Json => ({
    ...tBalanceTransaction,
    id: b.id,
    amount: num(b.amount),
    fee: num(b.fee),
    net: num(b.amount - b.fee),
    currency: b.currency,
    source: b.source,
    type: b.type,
    reporting_category: b.reportingCategory,
    description: b.description,
    created: b.created,
    available_on: b.created + 2 * 86_400,
    status: 'pending',
    exchange_rate: null,
    fee_details: b.fee === 0n ? [] : [{ amount: num(b.fee), application: null, currency: b.currency, description: b.feeDescription, type: 'stripe_fee' }],
  });
  const renderRefund = (r: RefundRec): Json => ({
    ...tRefund,
    id: r.id,
    amount: num(r.amount),
    charge: r.chargeId,
    payment_intent: r.paymentIntentId,
    currency: r.currency,
    status: r.status,
    failure_reason: r.failureReason,
    metadata: r.metadata,
    created: r.created,
    balance_transaction: null,
    reason: null,
  });
  const renderCharge = (c: ChargeRec, expand: string[] = []): Json => {
    const bt = balanceTransactions.get(c.balanceTransactionId)!;
    const refundList = c.refundIds.map((id) => renderRefund(refunds.get(id)!)).reverse();
    return {
      ...tCharge,
      id: c.id,
      amount: num(c.amount),
      amount_captured: num(c.amount),
      amount_refunded: num(c.refunded),
      refunded: c.refunded === c.amount,
      captured: true,
      paid: true,
      status: 'succeeded',
      disputed: c.disputed,
      currency: c.currency,
      payment_intent: c.paymentIntentId,
      balance_transaction: under(expand, 'balance_transaction') ? renderBalanceTransaction(bt) : bt.id,
      metadata: c.metadata,
      created: c.created,
      description: null,
      failure_code: null,
      failure_message: null,
      payment_method_details:
        c.method === 'card'
          ? { type: 'card', card: { brand: 'visa', country: 'US', exp_month: 12, exp_year: 2034, funding: 'credit', last4: c.instrument.slice(-4), network: 'visa' } }
          : { type: 'us_bank_account', us_bank_account: { account_holder_type: 'individual', account_type: 'checking', bank_name: 'STRIPE TEST BANK', last4: c.instrument.slice(-4), routing_number: '110000000' } },
      refunds: { object: 'list', data: refundList, has_more: false, total_count: refundList.length, url: `/v1/charges/${c.id}/refunds` },
    };
  };
  const renderPaymentIntent = (p: PaymentIntentRec, expand: string[] = []): Json => {
    const latest = under(expand, 'latest_charge');
    const charge = p.chargeId ? charges.get(p.chargeId)! : null;
    return {
      ...tPaymentIntent,
      id: p.id,
      amount: num(p.amount),
      amount_received: p.status === 'succeeded' ? num(p.amount) : 0,
      amount_capturable: 0,
      currency: p.currency,
      status: p.status,
      metadata: p.metadata,
      created: p.created,
      canceled_at: null,
      cancellation_reason: null,
      next_action: null,
      processing: p.status === 'processing' ? { type: p.method } : null,
      payment_method_types: [p.method],
      last_payment_error: p.lastError ? { type: 'invalid_request_error', code: p.lastError.code, message: p.lastError.message } : null,
      latest_charge: charge ? (latest ? renderCharge(charge, latest) : charge.id) : null,
      client_secret: `${p.id}_secret_test`,
    };
  };
  const renderSession = (s: TestCardSession & { base: Json }, expand: string[] = []): Json => {
    const piExpand = under(expand, 'payment_intent');
    const pi = s.paymentIntentId ? intents.get(s.paymentIntentId)! : null;
    return {
      ...s.base,
      id: s.id,
      object: 'checkout.session',
      mode: 'payment',
      amount_subtotal: num(s.amount),
      amount_total: num(s.amount),
      currency: s.currency,
      currency_conversion: null,
      client_reference_id: s.clientReferenceId,
      metadata: s.metadata,
      success_url: s.successUrl,
      cancel_url: s.cancelUrl,
      created: s.created,
      expires_at: s.expiresAt,
      status: s.status,
      payment_status: s.paymentStatus,
      url: s.status === 'open' ? `${url}/checkout/${s.id}` : null,
      payment_intent: pi ? (piExpand ? renderPaymentIntent(pi, piExpand) : pi.id) : null,
      livemode: false,
    };
  };
  const renderDispute = (d: DisputeRec): Json => ({
    ...tDispute,
    id: d.id,
    amount: num(d.amount),
    currency: d.currency,
    charge: d.chargeId,
    payment_intent: d.paymentIntentId,
    status: d.status,
    reason: d.reason,
    created: d.created,
    is_charge_refundable: false,
    metadata: {},
    balance_transactions: d.balanceTransactionIds.map((id) => renderBalanceTransaction(balanceTransactions.get(id)!)),
  });

  // ---- events -----------------------------------------------------------------------------------
  async function deliverOnce(event: TestCardEvent): Promise<void> {
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await sleep(retryMs * 2 ** (attempt - 1));
      const headers = { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': sign(event.body), 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' };
      let status: number | null = null;
      try {
        if (typeof target === 'function') status = await target(headers, event.body);
        else if (target) status = (await fetch(target, { method: 'POST', headers, body: event.body, signal: AbortSignal.timeout(10_000) })).status;
      } catch {
        status = null;
      }
      event.attempts.push(status);
      log('event', { to: typeof target === 'string' ? target : target ? 'in-process' : 'nowhere', attempt: attempt + 1, headers, body: JSON.parse(event.body), status });
      if (status !== null && status >= 200 && status < 300) {
        event.delivered = true;
        return;
      }
      if (!target) return;
    }
  }
  const deliver = (event: TestCardEvent, copies: number) =>
    track(
      (async () => {
        for (let n = 0; n < copies; n++) await deliverOnce(event);
      })(),
    );

  /** The events of one payment, refund or dispute, delivered by `mode`. */
  function flow(mode: TestCardDelivery) {
    const held: TestCardEvent[] = [];
    return {
      emit(type: string, object: Json): void {
        const event: TestCardEvent = {
          id: newId('evt').replace('_test', ''),
          type,
          objectId: String(object.id),
          body: JSON.stringify({
            id: '',
            object: 'event',
            api_version: Stripe.API_VERSION,
            created: seconds(),
            data: { object },
            livemode: false,
            pending_webhooks: 1,
            request: { id: null, idempotency_key: null },
            type,
          }),
          attempts: [],
          delivered: false,
        };
        event.body = event.body.replace('"id":""', `"id":${JSON.stringify(event.id)}`);
        sent.push(event);
        if (mode === 'silent') log('event-withheld', { body: JSON.parse(event.body) });
        else if (mode === 'shuffle') held.push(event);
        else if (mode === 'late') track(sleep(options.lateMs ?? 2000).then(() => deliver(event, 1)));
        else void deliver(event, mode === 'twice' ? 2 : 1);
      },
      end(): void {
        if (mode === 'shuffle') for (const e of held.reverse()) void deliver(e, 1);
      },
    };
  }
  const modeOf = (s: TestCardSession | undefined, explicit?: TestCardDelivery): TestCardDelivery => explicit ?? s?.delivery ?? options.delivery ?? 'normal';

  // ---- state changes ----------------------------------------------------------------------------
  const expireDue = () => {
    const now = seconds();
    for (const s of sessions.values()) if (s.status === 'open' && now >= s.expiresAt) expireSession(s);
  };
  function expireSession(s: TestCardSession & { base: Json }) {
    s.status = 'expired';
    const f = flow(modeOf(s));
    f.emit('checkout.session.expired', renderSession(s));
    f.end();
  }
  const sweep = setInterval(expireDue, 1000);
  sweep.unref();

  function newCharge(p: PaymentIntentRec): ChargeRec {
    const created = seconds();
    const c: ChargeRec = {
      id: newId('ch').replace('_test', ''),
      paymentIntentId: p.id,
      amount: p.amount,
      currency: p.currency,
      refunded: 0n,
      disputed: false,
      balanceTransactionId: newId('txn').replace('_test', ''),
      metadata: p.metadata,
      method: p.method,
      instrument: p.instrument,
      created,
      refundIds: [],
    };
    balanceTransactions.set(c.balanceTransactionId, {
      id: c.balanceTransactionId,
      amount: p.amount,
      fee: testCardFee(p.amount),
      currency: p.currency,
      source: c.id,
      type: p.method === 'card' ? 'charge' : 'payment',
      reportingCategory: 'charge',
      description: null,
      created,
      feeDescription: 'Stripe processing fees',
    });
    charges.set(c.id, c);
    p.chargeId = c.id;
    return c;
  }

  async function pay(sessionId: string, instrument: TestCardInstrument, opts: { delivery?: TestCardDelivery } = {}): Promise<TestCardPayResult> {
    expireDue();
    const s = sessions.get(sessionId);
    if (!s) throw new Error(`no Checkout Session ${sessionId}`);
    if (s.status !== 'open') throw new Error(`Checkout Session ${sessionId} is ${s.status}`);
    const bank = typeof instrument === 'object' && 'bankAccount' in instrument ? instrument.bankAccount : null;
    const card = bank === null ? (typeof instrument === 'string' ? instrument : (instrument as { card: string }).card).replace(/[\s-]/g, '') : null;
    const declined = (code: string, declineCode: string | null, message: string): TestCardPayResult => ({ outcome: 'declined', code, declineCode, message, redirect: null, paymentIntentId: null });
    if (card !== null) {
      if (!luhn(card)) return declined('incorrect_number', null, 'Your card number is incorrect.');
      if (card === TEST_CARDS.declined) return declined('card_declined', 'generic_decline', 'Your card was declined.');
      if (card === TEST_CARDS.insufficientFunds) return declined('card_declined', 'insufficient_funds', 'Your card has insufficient funds.');
      if (card !== TEST_CARDS.succeeds && card !== TEST_CARDS.refundFails)
        return declined('card_declined', 'test_mode_live_card', 'Your card was declined. Your request was in test mode, but used a non test card.');
    } else if (bank !== TEST_BANK_ACCOUNTS.succeeds && bank !== TEST_BANK_ACCOUNTS.fails) {
      return declined('payment_method_invalid_parameter', null, `Use a test bank account number (${TEST_BANK_ACCOUNTS.succeeds} succeeds, ${TEST_BANK_ACCOUNTS.fails} fails).`);
    }
    const p: PaymentIntentRec = {
      id: newId('pi').replace('_test', ''),
      sessionId: s.id,
      amount: s.amount,
      currency: s.currency,
      status: card !== null ? 'succeeded' : 'processing',
      metadata: s.paymentIntentMetadata,
      chargeId: null,
      method: card !== null ? 'card' : 'us_bank_account',
      instrument: card ?? bank!,
      created: seconds(),
      lastError: null,
    };
    intents.set(p.id, p);
    s.paymentIntentId = p.id;
    s.status = 'complete';
    const f = flow(modeOf(s, opts.delivery));
    const redirect = s.successUrl.replace('{CHECKOUT_SESSION_ID}', s.id);
    if (card !== null) {
      newCharge(p);
      s.paymentStatus = 'paid';
      f.emit('checkout.session.completed', renderSession(s));
      f.end();
      return { outcome: 'succeeded', code: null, declineCode: null, message: null, redirect, paymentIntentId: p.id };
    }
    s.paymentStatus = 'unpaid';
    f.emit('checkout.session.completed', renderSession(s));
    track(
      sleep(stepMs).then(() => {
        if (bank === TEST_BANK_ACCOUNTS.succeeds) {
          p.status = 'succeeded';
          newCharge(p);
          s.paymentStatus = 'paid';
          f.emit('checkout.session.async_payment_succeeded', renderSession(s));
        } else {
          p.status = 'requires_payment_method';
          p.lastError = { code: 'payment_method_provider_decline', message: 'The customer\'s bank account could not be debited (account closed).' };
          f.emit('checkout.session.async_payment_failed', renderSession(s));
        }
        f.end();
      }),
    );
    return { outcome: 'processing', code: null, declineCode: null, message: null, redirect, paymentIntentId: p.id };
  }

  async function dispute(paymentIntentId: string, opts: { outcome: 'won' | 'lost'; reason?: string; delivery?: TestCardDelivery }): Promise<{ disputeId: string }> {
    const p = intents.get(paymentIntentId);
    const c = p?.chargeId ? charges.get(p.chargeId) : undefined;
    if (!p || !c) throw new Error(`payment intent ${paymentIntentId} has no charge to dispute`);
    if (c.disputed) throw new Error(`charge ${c.id} is already disputed`);
    c.disputed = true;
    const d: DisputeRec = { id: newId('dp').replace('_test', ''), paymentIntentId: p.id, chargeId: c.id, amount: c.amount, currency: c.currency, status: 'needs_response', reason: opts.reason ?? 'fraudulent', balanceTransactionIds: [], created: seconds() };
    disputes.set(d.id, d);
    const f = flow(modeOf(sessions.get(p.sessionId), opts.delivery));
    const movement = (amount: bigint, fee: bigint, category: string, description: string) => {
      const bt: BalanceTransactionRec = { id: newId('txn').replace('_test', ''), amount, fee, currency: c.currency, source: d.id, type: 'adjustment', reportingCategory: category, description, created: seconds(), feeDescription: 'Dispute fee' };
      balanceTransactions.set(bt.id, bt);
      d.balanceTransactionIds.push(bt.id);
    };
    f.emit('charge.dispute.created', renderDispute(d));
    movement(-c.amount, TEST_CARD_FEE.disputeMinor, 'dispute', `Chargeback withdrawal for ${c.id}`);
    f.emit('charge.dispute.funds_withdrawn', renderDispute(d));
    await sleep(stepMs);
    d.status = 'under_review';
    f.emit('charge.dispute.updated', renderDispute(d));
    await sleep(stepMs);
    if (opts.outcome === 'won') {
      movement(c.amount, 0n, 'dispute_reversal', `Chargeback reversal for ${c.id}`);
      d.status = 'won';
      f.emit('charge.dispute.funds_reinstated', renderDispute(d));
    } else d.status = 'lost';
    f.emit('charge.dispute.closed', renderDispute(d));
    f.end();
    return { disputeId: d.id };
  }

  // ---- the API ----------------------------------------------------------------------------------
  type Answer = { status: number; body: unknown };
  function createSession(params: URLSearchParams, base: Json): Answer {
    const li = 'line_items[0]';
    const unit = params.get(`${li}[price_data][unit_amount]`);
    const currency = params.get(`${li}[price_data][currency]`);
    const name = params.get(`${li}[price_data][product_data][name]`) ?? '';
    const quantity = BigInt(params.get(`${li}[quantity]`) ?? '1');
    if (params.get('mode') !== 'payment' || !unit || !/^[0-9]+$/.test(unit) || !currency || params.has('line_items[1][quantity]'))
      return { status: 400, body: stripeError('invalid_request_error', 'The test card processor supports mode `payment` with one `price_data` line item (unit_amount, currency).', { param: 'line_items' }) };
    const successUrl = params.get('success_url');
    if (!successUrl) return { status: 400, body: stripeError('invalid_request_error', 'Missing required param: success_url.', { code: 'parameter_missing', param: 'success_url' }) };
    const created = seconds();
    const expiresAt = params.has('expires_at') ? Number(params.get('expires_at')) : created + 86_400;
    if (!(expiresAt >= created + 1800 && expiresAt <= created + 86_400))
      return { status: 400, body: stripeError('invalid_request_error', 'The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.', { param: 'expires_at' }) };
    const words = name.toUpperCase().split(/[^A-Z]+/);
    const s: TestCardSession & { base: Json } = {
      id: newId('cs'),
      amount: BigInt(unit) * quantity,
      currency: currency.toLowerCase(),
      description: name,
      clientReferenceId: params.get('client_reference_id'),
      metadata: bracketMap(params, 'metadata'),
      paymentIntentMetadata: bracketMap(params, 'payment_intent_data[metadata]'),
      successUrl,
      cancelUrl: params.get('cancel_url') ?? successUrl,
      created,
      expiresAt,
      status: 'open',
      paymentStatus: 'unpaid',
      paymentIntentId: null,
      delivery: DELIVERY_WORDS.find(([w]) => words.includes(w))?.[1] ?? null,
      base,
    };
    sessions.set(s.id, s);
    return { status: 200, body: renderSession(s, expandOf(params)) };
  }

  function createRefund(params: URLSearchParams): Answer {
    const piId = params.get('payment_intent');
    const p = piId ? intents.get(piId) : [...intents.values()].find((x) => x.chargeId === params.get('charge'));
    if (!p) return { status: 404, body: stripeError('invalid_request_error', `No such payment_intent: '${piId ?? params.get('charge')}'`, { code: 'resource_missing', param: piId ? 'payment_intent' : 'charge' }) };
    const c = p.chargeId ? charges.get(p.chargeId) : undefined;
    if (!c || p.status !== 'succeeded')
      return { status: 400, body: stripeError('invalid_request_error', `This PaymentIntent (${p.id}) does not have a successful charge to refund.`, { code: 'charge_not_refundable', param: 'payment_intent' }) };
    if (c.disputed) return { status: 400, body: stripeError('invalid_request_error', `Charge ${c.id} has been charged back; cannot issue a refund.`, { code: 'charge_disputed' }) };
    const left = c.amount - c.refunded;
    const amount = params.has('amount') ? BigInt(params.get('amount')!) : left;
    if (left === 0n) return { status: 400, body: stripeError('invalid_request_error', `Charge ${c.id} has already been refunded.`, { code: 'charge_already_refunded' }) };
    if (amount <= 0n || amount > left)
      return {
        status: 400,
        body: stripeError('invalid_request_error', `Refund amount (${decimal(amount, c.currency)}) is greater than unrefunded amount on charge (${decimal(left, c.currency)})`, { code: 'amount_too_large', param: 'amount' }),
      };
    const r: RefundRec = { id: newId('re').replace('_test', ''), paymentIntentId: p.id, chargeId: c.id, amount, currency: c.currency, status: 'succeeded', failureReason: null, metadata: bracketMap(params, 'metadata'), created: seconds() };
    refunds.set(r.id, r);
    c.refundIds.push(r.id);
    c.refunded += amount;
    const f = flow(modeOf(sessions.get(p.sessionId)));
    f.emit('refund.created', renderRefund(r));
    f.emit('charge.refunded', renderCharge(c));
    if (c.instrument === TEST_CARDS.refundFails) {
      track(
        sleep(stepMs).then(() => {
          r.status = 'failed';
          r.failureReason = 'expired_or_canceled_card';
          c.refunded -= amount;
          f.emit('refund.updated', renderRefund(r));
          f.emit('refund.failed', renderRefund(r));
          f.end();
        }),
      );
    } else f.end();
    return { status: 200, body: renderRefund(r) };
  }

  const notFound = (kind: string, id: string): Answer => ({ status: 404, body: stripeError('invalid_request_error', `No such ${kind}: '${id}'`, { code: 'resource_missing', param: 'id' }) });

  async function api(req: IncomingMessage, raw: string): Promise<Answer> {
    if (req.headers.authorization !== `Bearer ${secretKey}`) return { status: 401, body: stripeError('invalid_request_error', 'Invalid API Key provided.') };
    const u = new URL(req.url ?? '/', 'http://processor');
    const key = req.method === 'POST' ? req.headers['idempotency-key'] : undefined;
    if (typeof key === 'string') {
      const first = idempotent.get(key);
      if (first) {
        if (first.path !== u.pathname || first.raw !== raw)
          return { status: 400, body: stripeError('idempotency_error', `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`) };
        return first;
      }
    }
    const forwarded: Record<string, string> = { authorization: `Bearer ${secretKey}` };
    for (const h of ['content-type', 'stripe-version', 'accept']) if (typeof req.headers[h] === 'string') forwarded[h] = req.headers[h];
    const m = await fetch(`${mockUrl}${u.pathname}${u.search}`, { method: req.method, headers: forwarded, body: req.method === 'GET' || req.method === 'DELETE' ? undefined : raw });
    const mockBody = (await m.json()) as Json;
    if (!m.ok) return { status: m.status, body: mockBody };
    expireDue();
    const params = new URLSearchParams(req.method === 'POST' ? raw : u.search);
    const expand = expandOf(params);
    const path = u.pathname;
    let match: RegExpExecArray | null;
    let answer: Answer = { status: m.status, body: mockBody };
    if (req.method === 'POST' && path === '/v1/checkout/sessions') answer = createSession(params, mockBody);
    else if ((match = /^\/v1\/checkout\/sessions\/([^/]+)(\/expire)?$/.exec(path))) {
      const s = sessions.get(match[1]!);
      if (!s) answer = notFound('checkout.session', match[1]!);
      else if (match[2] && req.method === 'POST') {
        if (s.status !== 'open')
          answer = { status: 400, body: stripeError('invalid_request_error', `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${s.status}".`) };
        else {
          expireSession(s);
          answer = { status: 200, body: renderSession(s, expand) };
        }
      } else answer = { status: 200, body: renderSession(s, expand) };
    } else if (req.method === 'POST' && path === '/v1/refunds') answer = createRefund(params);
    else if (req.method === 'GET' && (match = /^\/v1\/(payment_intents|charges|balance_transactions|refunds|disputes)\/([^/]+)$/.exec(path))) {
      const id = match[2]!;
      const found =
        match[1] === 'payment_intents'
          ? intents.get(id) && renderPaymentIntent(intents.get(id)!, expand)
          : match[1] === 'charges'
            ? charges.get(id) && renderCharge(charges.get(id)!, expand)
            : match[1] === 'balance_transactions'
              ? balanceTransactions.get(id) && renderBalanceTransaction(balanceTransactions.get(id)!)
              : match[1] === 'refunds'
                ? refunds.get(id) && renderRefund(refunds.get(id)!)
                : disputes.get(id) && renderDispute(disputes.get(id)!);
      answer = found ? { status: 200, body: found } : notFound(match[1]!.replace(/s$/, ''), id);
    }
    if (typeof key === 'string' && answer.status < 500) idempotent.set(key, { path, raw, ...answer });
    return answer;
  }

  // ---- the checkout page ------------------------------------------------------------------------
  function page(s: TestCardSession, error: { code: string; declineCode: string | null; message: string } | null): string {
    const open = s.status === 'open';
    const amount = `${decimal(s.amount, s.currency)} ${s.currency.toUpperCase()}`;
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pay ${escapeHtml(amount)} (test card processor)</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem}input{font-size:1.1rem;width:100%;padding:.4rem;box-sizing:border-box}button{font-size:1.1rem;margin-top:.6rem;padding:.5rem 1rem}.error{color:#a00;border:1px solid #a00;padding:.5rem}small{color:#555}</style>
</head><body>
<p><small>Test mode: a stand-in for Stripe Checkout. No real card is charged.</small></p>
<h1 id="description">${escapeHtml(s.description)}</h1>
<p>Amount: <strong id="amount">${escapeHtml(amount)}</strong></p>
${error ? `<p class="error" id="error" role="alert" data-code="${escapeHtml(error.code)}" data-decline-code="${escapeHtml(error.declineCode ?? '')}">${escapeHtml(error.message)}</p>` : ''}
${
  open
    ? `<form method="post" action="/checkout/${escapeHtml(s.id)}/pay">
<label for="card">Card number</label>
<input id="card" name="card" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" required>
<button type="submit" id="pay">Pay ${escapeHtml(amount)}</button>
</form>
<form method="post" action="/checkout/${escapeHtml(s.id)}/pay">
<label for="bank_account">Or pay by bank debit (US bank account number)</label>
<input id="bank_account" name="bank_account" inputmode="numeric" placeholder="${TEST_BANK_ACCOUNTS.succeeds}" required>
<button type="submit" id="pay-bank">Pay by bank debit</button>
</form>
<p><a id="cancel" href="${escapeHtml(s.cancelUrl)}">Cancel and go back</a></p>
<p><small>Test cards: ${TEST_CARDS.succeeds} pays; ${TEST_CARDS.declined} is declined; ${TEST_CARDS.insufficientFunds} has insufficient funds. Bank debit: ${TEST_BANK_ACCOUNTS.succeeds} succeeds, ${TEST_BANK_ACCOUNTS.fails} fails, after processing.</small></p>`
    : `<p id="closed">This Checkout Session is ${s.status === 'complete' ? 'already paid' : 'no longer available (expired)'}.</p>`
}
</body></html>
`;
  }

  async function checkout(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const u = new URL(req.url ?? '/', 'http://processor');
    const m = /^\/checkout\/([^/]+)(\/pay)?$/.exec(u.pathname);
    expireDue();
    const s = m ? sessions.get(m[1]!) : undefined;
    const html = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action *" });
      res.end(body);
    };
    if (!m || !s) return html(404, '<!doctype html><title>Not found</title><p>No such Checkout Session.</p>');
    if (req.method === 'GET' && !m[2]) return html(200, page(s, null));
    if (req.method !== 'POST' || !m[2]) return html(405, '<!doctype html><title>Method not allowed</title>');
    const form = new URLSearchParams(raw);
    if (s.status !== 'open') return html(409, page(s, null));
    const bank = form.get('bank_account');
    const result = await pay(s.id, bank ? { bankAccount: bank.trim() } : { card: form.get('card') ?? '' });
    log('checkout', { session: s.id, instrument: bank ? 'bank debit' : 'card', outcome: result });
    if (result.outcome === 'declined') return html(402, page(s, { code: result.code!, declineCode: result.declineCode, message: result.message! }));
    res.writeHead(303, { location: result.redirect! });
    res.end();
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      if ((req.url ?? '').startsWith('/checkout/')) {
        checkout(req, res, raw).catch((err: unknown) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(String(err));
        });
        return;
      }
      api(req, raw)
        .then((answer) => {
          res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(8).toString('hex')}`, ...(req.headers['idempotency-key'] ? { 'idempotency-key': String(req.headers['idempotency-key']) } : {}) });
          res.end(JSON.stringify(answer.body));
          const params = new URLSearchParams(req.method === 'POST' ? raw : new URL(req.url ?? '/', 'http://x').search);
          log('request', { method: req.method, path: req.url, headers: { 'idempotency-key': req.headers['idempotency-key'] ?? null, 'stripe-version': req.headers['stripe-version'] ?? null }, params: Object.fromEntries(params), status: answer.status, answer: answer.body });
        })
        .catch((err: unknown) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify(stripeError('api_error', `test card processor: ${String(err)}`)));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    env: { CARD_STRIPE_SECRET_KEY: secretKey, CARD_STRIPE_WEBHOOK_SECRET: webhookSecret, CARD_STRIPE_API_URL: url },
    stripeMockUrl: mockUrl,
    pay: (sessionId, instrument, opts) => track(pay(sessionId, instrument, opts)),
    dispute: (paymentIntentId, opts) => track(dispute(paymentIntentId, opts)),
    expire: async (sessionId) => {
      const s = sessions.get(sessionId);
      if (!s) throw new Error(`no Checkout Session ${sessionId}`);
      if (s.status !== 'open') throw new Error(`Checkout Session ${sessionId} is ${s.status}`);
      expireSession(s);
    },
    sessions: () => [...sessions.values()].map(({ base: _base, ...s }) => ({ ...s })),
    events: () => [...sent],
    setWebhookTarget: (t) => {
      target = t;
    },
    sign,
    idle: async () => {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    close: async () => {
      clearInterval(sweep);
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await ownMock?.stop();
    },
  };
}
