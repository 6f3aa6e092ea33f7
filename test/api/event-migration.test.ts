import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { up } from '../../src/db/migrations/0070_event_domain_form';
import { startClaim } from '../../src/core/claim-flow';
import { failNotification, recordNotificationDelivered } from '../../src/core/notifications';
import { correctRecipientFromBank } from '../../src/core/recipients';
import { expirePaymentRequest } from '../../src/core/payment-links/payment-requests';
import { surfaceASnapshot } from '../../src/wire/events';
import { emitLegacyEvent } from '../helpers/legacy-events';
import { createHarness, type Harness } from '../helpers/harness';
import { waitFor } from '../helpers/webhook-receiver';

/**
 * Migration 0070 (docs/webhooks.md "Event data"): events stored in the legacy `surface_a` form, one for every
 * event the sandbox makes here (payouts, claim links, notifications, disbursements, deposits, payment requests,
 * a corrected recipient) as the code before domain events stored it, are rewritten into the domain form, and
 * every surface's events API answers the same bytes for each of them before and after; a row that is not
 * Surface A's rendering of an object stays `surface_a` and is served as before.
 */
const A = '/sandbox/v1';
const B = '/sandbox/claim/v1';
const C = '/sandbox/guide/v1';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('migration 0070: legacy events rewritten into the domain form', () => {
  it('every surface answers the same bytes for each rewritten row; a row that cannot be inverted stays legacy', async () => {
    const b = await h.business({ approvalsRequired: 0 });
    expect((await h.request('POST', `${A}/sandbox/fund`, { key: b.sandbox, body: { amount: '5000' } })).status).toBe(200);
    const payout = async (body: object, status: string) => {
      const r = await h.request('POST', `${A}/payouts`, { key: b.sandbox, body });
      expect(r.status, r.text).toBe(201);
      await waitFor(async () => (await h.request('GET', `${A}/payouts/${r.body.id}`, { key: b.sandbox })).body.status === status, `payout ${status}`);
      return r.body.id as string;
    };
    const spei = { type: 'bank_account', holder_name: 'Ana López', clabe: '032180000118359719', recipient_kind: 'individual' };
    await payout({ channel: 'spei_mxn', recipient: spei, source_amount: '100.00', reference: 'plain', metadata: { order: 'o-1' } }, 'succeeded');
    await payout({ channel: 'spei_mxn', recipient: spei, source_amount: '10', reference: 'sandbox:invalid_destination' }, 'failed');
    const claimId = await payout({ channel: 'claim_link', recipient: { type: 'phone', number: '+525512345678' }, source_amount: '50', message: 'Thanks!', reference: 'c-1' }, 'awaiting_claim');
    const { claim_token } = await h.db.selectFrom('payouts').select('claim_token').where('id', '=', claimId).executeTakeFirstOrThrow();
    expect((await startClaim(h.core, claim_token as string))?.claimStartedAt).toBeTruthy();
    await payout({ channel: 'claim_link', recipient: { type: 'email', address: 'ana@example.com' }, source_amount: '20', reference: 'sandbox:claim_expired' }, 'failed');

    const rc = await h.request('POST', `${C}/recipients`, { key: b.sandbox, body: { phone_number: '+525512345679' } });
    const notified: string[] = [];
    for (const channel of ['sms', 'whatsapp']) {
      const cp = await h.request('POST', `${C}/payouts`, {
        key: b.sandbox,
        body: { recipient_id: rc.body.id, amount: '25', currency: 'USD', delivery_channel: channel, destination: '+525512345679', notification: { send: true, language: 'es' } },
      });
      expect(cp.status, cp.text).toBe(201);
      notified.push(cp.body.id);
    }
    const sent = (id: string) => waitFor(async () => h.db.selectFrom('notifications').selectAll().where('payout_id', '=', id).where('status', '=', 'sent').executeTakeFirst(), 'sent');
    const [ok, ko] = [await sent(notified[0]), await sent(notified[1])];
    await recordNotificationDelivered(h.core, ok.id, ok.provider as string, ok.provider_message_id);
    await failNotification(h.core, ko.id, 'undelivered', 'The handset was unreachable');

    const d = await h.request('POST', `${A}/disbursements`, {
      key: b.sandbox,
      body: { name: 'Payroll', items: [{ channel: 'service_user_usdc', source_amount: '10', recipient: { type: 'service_user', handle: '@payroll_one' }, reference: 'item-1' }] },
    });
    expect((await h.request('POST', `${A}/disbursements/${d.body.id}/launch`, { key: b.sandbox })).status).toBe(200);
    await waitFor(async () => (await h.request('GET', `${A}/disbursements/${d.body.id}`, { key: b.sandbox })).body.status === 'completed', 'disbursement completed');

    const va = await h.request('POST', `${A}/virtual-accounts`, { key: b.sandbox, body: { currency: 'USD' } });
    const link = await h.request('POST', `${A}/payment-links`, { key: b.sandbox, body: { name: 'Invoices', methods: ['bank_transfer'] } });
    const pr = (amount: string, reference: string) =>
      h.request('POST', `${A}/payment-requests`, {
        key: b.sandbox,
        body: { payment_link_id: link.body.id, amount, currency: 'USD', reference, expires_at: new Date(Date.now() + 3600_000).toISOString() },
      });
    const paid = await pr('250.00', 'INV-1');
    const expiring = await pr('80.00', 'INV-2');
    expect((await h.request('POST', `${A}/sandbox/deposits`, { key: b.sandbox, body: { virtual_account_id: va.body.id, amount: '250.00', currency: 'USD', reference: 'INV-1' } })).status).toBe(201);
    await waitFor(async () => (await h.request('GET', `${A}/payment-requests/${paid.body.id}`, { key: b.sandbox })).body.status === 'paid', 'paid');
    expect(await expirePaymentRequest(h.core, expiring.body.id, { clockOffsetMs: 2 * 3600_000 })).toEqual({ status: 'expired' });
    const rec = await h.request('POST', `${A}/recipients`, {
      key: b.sandbox,
      body: { type: 'bank_account', country: 'US', currency: 'USD', name: 'Casey Noc', kind: 'individual', bank_account: { holder_name: 'Casey Noc', account_number: '000123456789', routing_number: '021000021', account_type: 'savings' } },
    });
    await correctRecipientFromBank(h.core, rec.body.id, { fields: { account_number: '000987654321' } }, { correctionId: 'noc_1', changeCode: 'C01', payoutId: 'po_0000000000000000000001' });

    // The legacy copy of every event: Surface A's object, as the code before domain events stored it.
    const events = await h.db.selectFrom('events').selectAll().where('business_id', '=', b.id).orderBy('id').execute();
    expect(new Set(events.map((e) => e.object_type))).toEqual(new Set(['payout', 'disbursement', 'deposit', 'payment_request', 'recipient']));
    const copies: string[] = [];
    for (const e of events) {
      const id = await emitLegacyEvent(h.db, {
        businessId: b.id,
        environment: 'sandbox',
        type: e.type,
        objectType: e.object_type,
        objectId: e.object_id,
        data: surfaceASnapshot(e.data_format, e.data as Record<string, unknown>),
        dedupeKey: `legacy:${e.id}`,
      });
      copies.push(id as string);
    }
    // Not Surface A's rendering of a payout (a hand-made or much older row): it cannot be inverted.
    const odd = (await emitLegacyEvent(h.db, {
      businessId: b.id,
      environment: 'sandbox',
      type: 'payout.succeeded',
      objectType: 'payout',
      objectId: 'po_odd',
      data: { id: 'po_odd', object: 'payout', status: 'succeeded', channel: 'spei_mxn', source_amount: '1.00' },
      dedupeKey: 'legacy:odd',
    })) as string;

    const answers = async () => {
      const out: string[] = [];
      for (const id of [...copies, odd]) {
        for (const base of [A, B, C]) {
          const r = await h.request('GET', `${base}/events/${id}`, { key: b.sandbox });
          out.push(`${base} ${id} ${r.status} ${r.status === 200 ? r.text : ""}`);
        }
      }
      return out;
    };
    const before = await answers();
    expect(before.filter((a) => / 200 /.test(a)).length).toBeGreaterThan(copies.length);
    await up(h.db as unknown as Kysely<unknown>);
    const formats = await h.db.selectFrom('events').select(['id', 'data_format']).where('id', 'in', [...copies, odd]).execute();
    expect(formats.filter((f) => f.data_format === 'domain').map((f) => f.id).sort()).toEqual([...copies].sort());
    expect(formats.find((f) => f.id === odd)?.data_format).toBe('surface_a');
    expect(await answers()).toEqual(before);
  });
});
