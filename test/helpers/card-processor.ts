/**
 * A hand-written card processor for core and API tests (docs/getting-paid.md "Card payments"): an
 * object implementing the seam's CardProcessor interface (src/card-processors/processor.ts), with
 * sessions in memory and events signed with its own secret and verified only by its own
 * verifyEvent. It is the seam's interface, not a copy of any processor's protocol; the end-to-end
 * tests over a real client use tools/test-card-processor.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  type CardCheckoutInput,
  type CardCheckoutState,
  type CardEventKind,
  CardEventRefusedError,
  type CardProcessor,
  type CardProcessorEvent,
  CardProcessorError,
  type CardRefundInput,
  type CardRefundResult,
} from '../../src/card-processors/processor';

/** Signature header of a delivery: `t=<unix seconds>,v1=<hex hmac of "t.body">`. */
export const TEST_SIGNATURE_HEADER = 'x-test-card-signature';

/** The test processor with what tests drive: its sessions, counters and event deliveries. */
export interface TestCardProcessor extends CardProcessor {
  sessions: Map<string, CardCheckoutState & { input: CardCheckoutInput }>;
  /** How many createCheckout calls made a new session. */
  created: number;
  /** Fails the next createCheckout with this error. */
  failNextCreate: CardProcessorError | null;
  /** The payer pays `sessionId` (sync card: paid; async: complete, unpaid) and the processor knows its fee. */
  pay(sessionId: string, opts?: { async?: boolean; fee?: bigint }): CardCheckoutState;
  /** The async payment settles. */
  settle(sessionId: string, ok: boolean, fee?: bigint): CardCheckoutState;
  /** A signed delivery (`body`, `headers`) of an event about `sessionId`; `secret` signs it wrongly when given. */
  delivery(kind: CardEventKind, sessionId: string, opts?: { eventId?: string; secret?: string; at?: Date }): { body: string; headers: Record<string, string> };
}

let seq = 0;

/** A new test processor `id` signing with `secret`. */
export function testCardProcessor(id = 'testcards', secret = 'whsec_test'): TestCardProcessor {
  const sessions: TestCardProcessor['sessions'] = new Map();
  const byKey = new Map<string, string>();
  const stateOf = (s: CardCheckoutState & { input: CardCheckoutInput }): CardCheckoutState => {
    const { input: _input, ...rest } = s;
    return { ...rest };
  };
  const sign = (body: string, at: Date, key: string) => {
    const t = Math.floor(at.getTime() / 1000);
    return `t=${t},v1=${createHmac('sha256', key).update(`${t}.${body}`).digest('hex')}`;
  };
  const must = (sessionId: string) => {
    const s = sessions.get(sessionId);
    if (!s) throw new CardProcessorError(`No such session ${sessionId}`, false, 'resource_missing');
    return s;
  };
  const p: TestCardProcessor = {
    id,
    sessions,
    created: 0,
    failNextCreate: null,
    async createCheckout(input) {
      if (p.failNextCreate) {
        const e = p.failNextCreate;
        p.failNextCreate = null;
        throw e;
      }
      const known = byKey.get(input.idempotencyKey);
      if (known) return stateOf(must(known));
      const sessionId = `cs_test_${++seq}_${input.reference}`;
      p.created++;
      const s = {
        sessionId,
        url: `https://checkout.example/pay/${sessionId}`,
        status: 'open' as const,
        paymentStatus: 'unpaid' as const,
        reference: input.reference,
        amount: input.amount,
        currency: input.currency,
        expiresAt: input.expiresAt,
        paymentIntentId: null,
        chargeId: null,
        fee: null,
        input,
      };
      sessions.set(sessionId, s);
      byKey.set(input.idempotencyKey, sessionId);
      return stateOf(s);
    },
    async retrieveCheckout(sessionId) {
      return stateOf(must(sessionId));
    },
    async expireCheckout(sessionId) {
      const s = must(sessionId);
      if (s.status !== 'open') throw new CardProcessorError(`Session ${sessionId} is ${s.status}`, false, 'session_not_open');
      s.status = 'expired';
      return stateOf(s);
    },
    async refund(input: CardRefundInput): Promise<CardRefundResult> {
      return { refundId: `re_${input.reference}`, status: 'succeeded', failureReason: null };
    },
    verifyEvent(rawBody, headers, now): CardProcessorEvent {
      const h = headers[TEST_SIGNATURE_HEADER] ?? '';
      const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(h);
      if (!m) throw new CardEventRefusedError('signature_invalid', 'No valid signature header');
      const expected = createHmac('sha256', secret).update(`${m[1]}.${rawBody}`).digest();
      if (!timingSafeEqual(expected, Buffer.from(m[2], 'hex'))) throw new CardEventRefusedError('signature_invalid', 'The signature does not match');
      if (Math.abs(now.getTime() / 1000 - Number(m[1])) > 300) throw new CardEventRefusedError('signature_expired', 'The signature is older than 300 s');
      let body: { id: string; type: string; kind: CardEventKind; created: number; checkout: Record<string, unknown> | null };
      try {
        body = JSON.parse(rawBody);
      } catch {
        throw new CardEventRefusedError('payload_invalid', 'The body is not JSON');
      }
      const c = body.checkout;
      const checkout: CardCheckoutState | null = c
        ? {
            sessionId: c.sessionId as string,
            url: (c.url as string | null) ?? null,
            status: c.status as CardCheckoutState['status'],
            paymentStatus: c.paymentStatus as CardCheckoutState['paymentStatus'],
            reference: (c.reference as string | null) ?? null,
            amount: BigInt(c.amount as string),
            currency: c.currency as string,
            expiresAt: c.expiresAt ? new Date(c.expiresAt as string) : null,
            paymentIntentId: (c.paymentIntentId as string | null) ?? null,
            chargeId: (c.chargeId as string | null) ?? null,
            fee: c.fee === null || c.fee === undefined ? null : BigInt(c.fee as string),
          }
        : null;
      return { id: body.id, type: body.type, kind: body.kind, createdAt: new Date(body.created * 1000), livemode: true, checkout, refund: null, dispute: null, payload: body };
    },
    pay(sessionId, opts = {}) {
      const s = must(sessionId);
      s.status = 'complete';
      s.paymentIntentId = `pi_${sessionId}`;
      if (opts.async) {
        s.paymentStatus = 'unpaid';
      } else {
        s.paymentStatus = 'paid';
        s.chargeId = `ch_${sessionId}`;
        s.fee = opts.fee ?? null;
      }
      return stateOf(s);
    },
    settle(sessionId, ok, fee) {
      const s = must(sessionId);
      if (ok) {
        s.paymentStatus = 'paid';
        s.chargeId = `ch_${sessionId}`;
        s.fee = fee ?? null;
      }
      return stateOf(s);
    },
    delivery(kind, sessionId, opts = {}) {
      const s = stateOf(must(sessionId));
      const at = opts.at ?? new Date();
      const type = {
        checkout_completed: 'checkout.session.completed',
        checkout_async_succeeded: 'checkout.session.async_payment_succeeded',
        checkout_async_failed: 'checkout.session.async_payment_failed',
        checkout_expired: 'checkout.session.expired',
      }[kind as string] ?? kind;
      const body = JSON.stringify({
        id: opts.eventId ?? `evt_${++seq}`,
        type,
        kind,
        created: Math.floor(at.getTime() / 1000),
        checkout: { ...s, amount: String(s.amount), fee: s.fee === null ? null : String(s.fee), expiresAt: s.expiresAt?.toISOString() ?? null },
      });
      return { body, headers: { 'content-type': 'application/json', [TEST_SIGNATURE_HEADER]: sign(body, at, opts.secret ?? secret) } };
    },
  };
  return p;
}
