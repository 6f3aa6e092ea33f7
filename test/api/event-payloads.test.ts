import { readFileSync, mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitLegacyEvent } from '../helpers/legacy-events';
import { dropDeposit, toDeposit } from '../../src/core/funding/deposits';
import { startClaim } from '../../src/core/claim-flow';
import { failNotification, recordNotificationDelivered } from '../../src/core/notifications';
import { correctRecipientFromBank } from '../../src/core/recipients';
import { expirePaymentRequest } from '../../src/core/payment-links/payment-requests';
import { eventObjectData } from '../../src/domain/event-objects';
import { newId } from '../../src/domain/ids';
import { createHarness, type Harness } from '../helpers/harness';
import { type WebhookReceiver, waitFor, webhookReceiver } from '../helpers/webhook-receiver';

/**
 * The recorded event payloads (docs/webhooks.md "Events API"): the sandbox is driven through the
 * events that exist (payouts succeeded, failed, refunded, claimed, expired; claim-link
 * notifications; Surface A disbursements with approval and with failures; deposits received and
 * credited; a payment request paid; Surface B and Surface C payouts) and, for every event, what each
 * surface's subscriber receives is compared with test/fixtures/event-payloads/<scenario>.json: the
 * Surface A webhook body and its `GET /v1/events/{id}`, the Surface B webhook body and its events
 * API, the Surface C webhook body and its events API. Ids, tokens, timestamps and references are
 * normalised to placeholders; everything else must stay byte for byte. `RECORD_EVENT_PAYLOADS=1`
 * rewrites the fixtures (only on purpose, when a wire shape is meant to change).
 */

const A = '/sandbox/v1';
const B = '/sandbox/claim/v1';
const C = '/sandbox/guide/v1';
const FIXTURES = join(__dirname, '..', 'fixtures', 'event-payloads');
const RECORD = process.env.RECORD_EVENT_PAYLOADS === '1';

let h: Harness;
let rx: { A: WebhookReceiver; B: WebhookReceiver; C: WebhookReceiver };

beforeAll(async () => {
  h = await createHarness();
  rx = { A: await webhookReceiver(), B: await webhookReceiver(), C: await webhookReceiver() };
});
afterAll(async () => {
  await Promise.all(Object.values(rx ?? {}).map((r) => r.close()));
  await h?.close();
});

type Biz = { id: string; sandbox: string; live: string };

/** A funded business with one `*` endpoint on each surface. */
async function subscribed(o: { approvalsRequired?: number } = {}): Promise<Biz> {
  const b = await h.business(o);
  const a = await h.request('POST', `${A}/webhooks`, { key: b.sandbox, body: { url: rx.A.url, events: ['*'] } });
  const bb = await h.request('POST', `${B}/webhooks`, { key: b.sandbox, body: { url: rx.B.url, events: ['*'], secret: 'b-event-payloads-secret-long' } });
  const c = await h.request('POST', `${C}/webhooks`, { key: b.sandbox, body: { url: rx.C.url, events: ['*'] } });
  expect([a.status, bb.status, c.status], `${a.text} ${bb.text} ${c.text}`).toEqual([201, 201, 201]);
  const f = await h.request('POST', `${A}/sandbox/fund`, { key: b.sandbox, body: { amount: '5000' } });
  expect(f.status, f.text).toBe(200);
  return b;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const ID = /^([a-z][a-z0-9]*)_(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{20,}$/;
const RANDOM_KEYS = new Set(['url', 'claim_url', 'claimUrl', 'pay_url', 'payment_url', 'receipt_url', 'link_token', 'token', 'provider_reference', 'providerReference', 'external_id', 'externalId']);

/** Replaces ids, timestamps and random tokens with placeholders, keeping every key, type and order. */
function normalise(v: unknown, key = ''): unknown {
  if (Array.isArray(v)) return v.map((x) => normalise(x));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalise(x, k)]));
  if (typeof v !== 'string') return v;
  if (ISO.test(v)) return '<time>';
  const id = ID.exec(v);
  if (id) return `<${id[1]}_id>`;
  if (RANDOM_KEYS.has(key)) return v.replace(/[A-Za-z0-9_-]{16,}/g, '<token>');
  return v;
}

/** Every event of a business, each as every surface's subscriber got it (body as signed, and its events API). */
async function payloads(b: Biz): Promise<unknown[]> {
  const events = await h.db.selectFrom('events').select(['id', 'type']).where('business_id', '=', b.id).orderBy('id').execute();
  const out: { text: string; entry: unknown }[] = [];
  for (const e of events) {
    const entry: Record<string, unknown> = { core_type: e.type };
    for (const [s, base] of [['A', A], ['B', B], ['C', C]] as const) {
      const api = await h.request('GET', `${base}/events/${e.id}`, { key: b.sandbox });
      if (api.status === 404) continue;
      expect(api.status, api.text).toBe(200);
      const delivered = await waitFor(() => rx[s].received.find((r) => (r.body.id ?? r.body.eventId) === e.id), `surface ${s} delivery of ${e.type} ${e.id}`);
      entry[s] = { webhook: normalise(JSON.parse(delivered.raw)), raw_matches_api: delivered.raw === api.text, events_api: normalise(api.body) };
    }
    out.push({ text: JSON.stringify(entry), entry });
  }
  // Events of concurrent objects may interleave: the fixture is the sorted set.
  return out.sort((x, y) => (x.text < y.text ? -1 : x.text > y.text ? 1 : 0)).map((x) => x.entry);
}

/** Compares (or, with RECORD_EVENT_PAYLOADS=1, records) a scenario's payloads. */
function check(scenario: string, got: unknown[]): void {
  const file = join(FIXTURES, `${scenario}.json`);
  const text = `${JSON.stringify(got, null, 2)}\n`;
  if (RECORD || !existsSync(file)) {
    if (!RECORD) throw new Error(`no fixture ${file}: record it with RECORD_EVENT_PAYLOADS=1`);
    mkdirSync(FIXTURES, { recursive: true });
    writeFileSync(file, text);
    return;
  }
  expect(text).toBe(readFileSync(file, 'utf8'));
}

async function payoutStatus(b: Biz, id: string, ...final: string[]): Promise<void> {
  await waitFor(async () => final.includes((await h.request('GET', `${A}/payouts/${id}`, { key: b.sandbox })).body.status), `payout ${id} ${final.join('|')}`);
}

/** Waits until every event of the business is delivered on every surface that receives it. */
async function settled(b: Biz): Promise<void> {
  await waitFor(async () => {
    const pending = await h.db
      .selectFrom('events')
      .select('id')
      .where('business_id', '=', b.id)
      .where('dispatched_at', 'is', null)
      .execute();
    return pending.length === 0;
  }, 'every event dispatched');
}

const spei = { type: 'bank_account', holder_name: 'Ana López', clabe: '032180000118359719', recipient_kind: 'individual' };

describe('recorded event payloads on every surface', () => {
  it('Surface A payouts: succeeded, failed, refunded, retried', async () => {
    const b = await subscribed();
    const refs = ['plain-ref', 'sandbox:invalid_destination', 'sandbox:refunded_by_provider', 'sandbox:provider_timeout_once'];
    for (const reference of refs) {
      const r = await h.request('POST', `${A}/payouts`, {
        key: b.sandbox,
        body: { channel: 'spei_mxn', recipient: spei, source_amount: '100.00', reference, metadata: { order: 'o-1' } },
      });
      expect(r.status, r.text).toBe(201);
      await payoutStatus(b, r.body.id, reference === 'sandbox:invalid_destination' ? 'failed' : reference === 'sandbox:refunded_by_provider' ? 'refunded' : 'succeeded');
    }
    await settled(b);
    check('surface-a-payouts', await payloads(b));
  });

  it('claim links: claimed and delivered, expired, canceled; notifications', async () => {
    const b = await subscribed();
    const claimed = await h.request('POST', `${A}/payouts`, {
      key: b.sandbox,
      body: { channel: 'claim_link', recipient: { type: 'phone', number: '+525512345678' }, source_amount: '50', message: 'Thanks!', reference: 'claim-1' },
    });
    expect(claimed.status, claimed.text).toBe(201);
    await payoutStatus(b, claimed.body.id, 'awaiting_claim');
    const c = await h.request('POST', `${A}/sandbox/payouts/${claimed.body.id}/claim`, { key: b.sandbox, body: { method: 'bank_transfer' } });
    expect(c.status, c.text).toBe(200);
    await payoutStatus(b, claimed.body.id, 'succeeded');

    const expired = await h.request('POST', `${A}/payouts`, {
      key: b.sandbox,
      body: { channel: 'claim_link', recipient: { type: 'email', address: 'ana@example.com' }, source_amount: '20', reference: 'sandbox:claim_expired' },
    });
    expect(expired.status, expired.text).toBe(201);
    await payoutStatus(b, expired.body.id, 'failed');

    const canceled = await h.request('POST', `${A}/payouts`, {
      key: b.sandbox,
      body: { channel: 'claim_link', recipient: { type: 'phone', number: '+525512345670' }, source_amount: '10', reference: 'cancel-me' },
    });
    expect(canceled.status, canceled.text).toBe(201);
    await payoutStatus(b, canceled.body.id, 'awaiting_claim');
    const x = await h.request('DELETE', `${B}/disbursements/${canceled.body.id}`, { key: b.sandbox });
    expect(x.status, x.text).toBe(200);
    await payoutStatus(b, canceled.body.id, 'canceled');
    await settled(b);
    check('claim-links', await payloads(b));
  });

  it('Surface A disbursements: approval, launch, completed with failures', async () => {
    const b = await subscribed({ approvalsRequired: 1 });
    const approver = (await h.request('POST', `${A}/api-keys`, { key: b.sandbox, body: { name: 'Approver' } })).body.key as string;
    const d = await h.request('POST', `${A}/disbursements`, {
      key: b.sandbox,
      body: {
        name: 'Payroll',
        items: [
          { channel: 'service_user_usdc', source_amount: '10', recipient: { type: 'service_user', handle: '@payroll_one' }, reference: 'item-1' },
          { channel: 'spei_mxn', source_amount: '20', recipient: spei, reference: 'sandbox:provider_declined' },
        ],
      },
    });
    expect(d.status, d.text).toBe(201);
    const sub = await h.request('POST', `${A}/disbursements/${d.body.id}/submit-for-approval`, { key: b.sandbox });
    expect(sub.status, sub.text).toBe(200);
    const ok = await h.request('POST', `${A}/disbursements/${d.body.id}/approvals/${sub.body.revision_id}/approve`, { key: approver });
    expect(ok.status, ok.text).toBe(200);
    const l = await h.request('POST', `${A}/disbursements/${d.body.id}/launch`, { key: b.sandbox });
    expect(l.status, l.text).toBe(200);
    await waitFor(async () => (await h.request('GET', `${A}/disbursements/${d.body.id}`, { key: b.sandbox })).body.status.startsWith('completed'), 'disbursement completed');
    await settled(b);
    check('surface-a-disbursements', await payloads(b));
  });

  it('deposits and a payment request paid', async () => {
    const b = await subscribed();
    const va = await h.request('POST', `${A}/virtual-accounts`, { key: b.sandbox, body: { currency: 'USD' } });
    expect(va.status, va.text).toBe(201);
    const link = await h.request('POST', `${A}/payment-links`, { key: b.sandbox, body: { name: 'Invoices', methods: ['bank_transfer'] } });
    expect(link.status, link.text).toBe(201);
    const pr = await h.request('POST', `${A}/payment-requests`, {
      key: b.sandbox,
      body: { payment_link_id: link.body.id, amount: '250.00', currency: 'USD', reference: 'INV-1', expires_at: new Date(Date.now() + 3600_000).toISOString() },
    });
    expect(pr.status, pr.text).toBe(201);
    const paying = await h.request('POST', `${A}/sandbox/deposits`, { key: b.sandbox, body: { virtual_account_id: va.body.id, amount: '250.00', currency: 'USD', reference: 'INV-1' } });
    expect(paying.status, paying.text).toBe(201);
    const plain = await h.request('POST', `${A}/sandbox/deposits`, { key: b.sandbox, body: { virtual_account_id: va.body.id, amount: '12.34', currency: 'USD', reference: 'unmatched' } });
    expect(plain.status, plain.text).toBe(201);
    await waitFor(async () => (await h.request('GET', `${A}/payment-requests/${pr.body.id}`, { key: b.sandbox })).body.status === 'paid', 'payment request paid');
    await waitFor(
      async () => (await h.db.selectFrom('events').select('id').where('business_id', '=', b.id).where('type', '=', 'deposit.credited').execute()).length === 2,
      'both deposits credited',
    );
    await settled(b);
    check('deposits-payment-requests', await payloads(b));
  });

  it('a recipient corrected by a bank; a payment request expired', async () => {
    const b = await subscribed();
    const rec = await h.request('POST', `${A}/recipients`, {
      key: b.sandbox,
      body: { type: 'bank_account', country: 'US', currency: 'USD', name: 'Casey Noc', kind: 'individual', bank_account: { holder_name: 'Casey Noc', account_number: '000123456789', routing_number: '021000021', account_type: 'savings' } },
    });
    expect(rec.status, rec.text).toBe(201);
    const corrected = await correctRecipientFromBank(h.core, rec.body.id, { fields: { account_number: '000987654321' } }, { correctionId: 'noc_1', changeCode: 'C01', payoutId: 'po_0000000000000000000001' });
    expect(corrected?.status).toBe('ready');
    const link = await h.request('POST', `${A}/payment-links`, { key: b.sandbox, body: { name: 'Invoices', methods: ['bank_transfer'] } });
    expect(link.status, link.text).toBe(201);
    const pr = await h.request('POST', `${A}/payment-requests`, {
      key: b.sandbox,
      body: { payment_link_id: link.body.id, amount: '80.00', currency: 'USD', reference: 'INV-2', expires_at: new Date(Date.now() + 3600_000).toISOString() },
    });
    expect(pr.status, pr.text).toBe(201);
    expect(await expirePaymentRequest(h.core, pr.body.id, { clockOffsetMs: 2 * 3600_000 })).toEqual({ status: 'expired' });
    await settled(b);
    check('recipients-payment-request-expired', await payloads(b));
  });

  it('Surface B disbursements and Surface C payouts', async () => {
    const b = await subscribed();
    const bd = await h.request('POST', `${B}/disbursements`, { key: b.sandbox, body: { recipientPhone: '+525512345678', amountUsd: '40.00', currency: 'USD', reference: 'inv-1', note: 'Gracias' } });
    expect(bd.status, bd.text).toBe(201);
    const rc = await h.request('POST', `${C}/recipients`, { key: b.sandbox, body: { phone_number: '+525512345679' } });
    expect(rc.status, rc.text).toBe(201);
    const cp = await h.request('POST', `${C}/payouts`, {
      key: b.sandbox,
      body: { recipient_id: rc.body.id, amount: '25', currency: 'USD', delivery_channel: 'whatsapp', destination: '+525512345679', notification: { send: true, language: 'es' } },
    });
    expect(cp.status, cp.text).toBe(201);
    for (const id of [bd.body.id, cp.body.id]) await payoutStatus(b, id, 'awaiting_claim');
    await waitFor(
      async () => (await h.db.selectFrom('events').select('id').where('business_id', '=', b.id).where('type', 'like', 'payout.notification_%').execute()).length >= 1,
      'a notification event',
    );
    await settled(b);
    check('surface-b-c', await payloads(b));
  });
  it('a claim started, notifications delivered and failed, a disbursement completed, a deposit dropped', async () => {
    const b = await subscribed({ approvalsRequired: 0 });
    const claim = await h.request('POST', `${A}/payouts`, {
      key: b.sandbox,
      body: { channel: 'claim_link', recipient: { type: 'phone', number: '+525512345671' }, source_amount: '30', reference: 'claim-start' },
    });
    expect(claim.status, claim.text).toBe(201);
    await payoutStatus(b, claim.body.id, 'awaiting_claim');
    const { claim_token: token } = await h.db.selectFrom('payouts').select('claim_token').where('id', '=', claim.body.id).executeTakeFirstOrThrow();
    expect((await startClaim(h.core, token as string))?.claimStartedAt).toBeTruthy();

    const rc = await h.request('POST', `${C}/recipients`, { key: b.sandbox, body: { phone_number: '+525512345672' } });
    expect(rc.status, rc.text).toBe(201);
    const notified: string[] = [];
    for (const channel of ['sms', 'whatsapp']) {
      const cp = await h.request('POST', `${C}/payouts`, {
        key: b.sandbox,
        body: { recipient_id: rc.body.id, amount: '15', currency: 'USD', delivery_channel: channel, destination: '+525512345672', notification: { send: true, language: 'en' } },
      });
      expect(cp.status, cp.text).toBe(201);
      notified.push(cp.body.id);
    }
    const sent = (id: string) =>
      waitFor(async () => h.db.selectFrom('notifications').selectAll().where('payout_id', '=', id).where('status', '=', 'sent').executeTakeFirst(), `notification of ${id} sent`);
    const [delivered, failed] = [await sent(notified[0]), await sent(notified[1])];
    expect(await recordNotificationDelivered(h.core, delivered.id, delivered.provider as string, delivered.provider_message_id)).toBe(true);
    expect(await failNotification(h.core, failed.id, 'undelivered', 'The handset was unreachable')).toBe(true);

    const d = await h.request('POST', `${A}/disbursements`, {
      key: b.sandbox,
      body: { name: 'Bonus', items: [{ channel: 'service_user_usdc', source_amount: '5', recipient: { type: 'service_user', handle: '@bonus_one' }, reference: 'bonus-1' }] },
    });
    expect(d.status, d.text).toBe(201);
    const l = await h.request('POST', `${A}/disbursements/${d.body.id}/launch`, { key: b.sandbox });
    expect(l.status, l.text).toBe(200);
    await waitFor(async () => (await h.request('GET', `${A}/disbursements/${d.body.id}`, { key: b.sandbox })).body.status === 'completed', 'disbursement completed');

    const va = await h.request('POST', `${A}/virtual-accounts`, { key: b.sandbox, body: { currency: 'USD' } });
    expect(va.status, va.text).toBe(201);
    const dep = await h.request('POST', `${A}/sandbox/deposits`, { key: b.sandbox, body: { virtual_account_id: va.body.id, amount: '7.00', currency: 'USD', reference: 'to-drop' } });
    expect(dep.status, dep.text).toBe(201);
    await waitFor(async () => (await h.request('GET', `${A}/deposits/${dep.body.id}`, { key: b.sandbox })).body.status === 'credited', 'deposit credited');
    // A received deposit with no workflow yet (as a watched chain transfer is), dropped before it starts.
    const row = await h.db.selectFrom('deposits').selectAll().where('id', '=', dep.body.id).executeTakeFirstOrThrow();
    const droppedId = newId('dep');
    await h.db.insertInto('deposits').values({ ...row, id: droppedId, status: 'received', external_id: `${row.external_id}-dropped`, credited_at: null, match_result: null }).execute();
    expect(await dropDeposit(h.db, droppedId)).toBe(true);
    await settled(b);
    check('claim-started-notifications-completed-dropped', await payloads(b));
  });
});

describe('events stored before migration 0066 (Surface A snapshot)', () => {
  it('list and deliver exactly as the same object recorded as a domain object', async () => {
    const b = await subscribed();
    const va = await h.request('POST', `${A}/virtual-accounts`, { key: b.sandbox, body: { currency: 'USD' } });
    const d = await h.request('POST', `${A}/sandbox/deposits`, { key: b.sandbox, body: { virtual_account_id: va.body.id, amount: '12.34', currency: 'USD', reference: 'old-row' } });
    expect(d.status, d.text).toBe(201);
    const wire = await waitFor(async () => {
      const r = await h.request('GET', `${A}/deposits/${d.body.id}`, { key: b.sandbox });
      return r.body.status === 'credited' ? r.body : undefined;
    }, 'deposit credited');
    const row = await h.db.selectFrom('deposits').selectAll().where('id', '=', d.body.id).executeTakeFirstOrThrow();
    const emit = (data: Record<string, unknown>, dataFormat: 'surface_a' | 'domain', tag: string) =>
      h.db.transaction().execute((tx) =>
        emitLegacyEvent(tx, { businessId: b.id, environment: 'sandbox', type: 'deposit.credited', objectType: 'deposit', objectId: row.id, data, dataFormat, dedupeKey: `test:${row.id}:${tag}` }),
      );
    // The old code stored Surface A's rendering of the deposit, as GET /deposits/{id} answers it.
    const legacy = await emit(wire, 'surface_a', 'legacy');
    const domain = await emit(eventObjectData({ object: 'deposit', value: toDeposit(row) }), 'domain', 'domain');
    expect(legacy && domain).toBeTruthy();
    for (const [s, base] of [['A', A], ['B', B]] as const) {
      const [x, y] = await Promise.all([legacy, domain].map((id) => h.request('GET', `${base}/events/${id}`, { key: b.sandbox })));
      expect([x.status, y.status]).toEqual([200, 200]);
      // The same bytes but for the event's own id and time.
      const same = (text: string, id: string) => text.replace(id, 'ID').replace(/"(created_at|createdAt)":"[^"]+","data"/, '"$1":"T","data"');
      expect(same(x.text, legacy as string)).toBe(same(y.text, domain as string));
      const [dx, dy] = await Promise.all([legacy, domain].map((id) => waitFor(() => rx[s].received.find((r) => r.body.id === id), `surface ${s} delivery`)));
      expect(dx.raw).toBe(x.text);
      expect(dy.raw).toBe(y.text);
    }
  });
});
