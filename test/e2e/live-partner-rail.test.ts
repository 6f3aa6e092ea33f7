/**
 * Live payouts through the payout partner (issue #35; docs/rails.md "Payout partner"): the Wise
 * Platform API shape, spoken by the test partner (tools/test-partner/partner.ts) over real HTTP,
 * with webhooks signed by its own RSA key pair and delivered to our route POST /hooks/partner/wise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiveDeposit } from '../../src/core/funding/deposits';
import { startRailPollers } from '../../src/core/rails/lifecycle';
import { listPartnerTransfers } from '../../src/core/rails/operators';
import { renderPartnerTransfer } from '../../src/main/admin-rails';
import { refreshRailHealth } from '../../src/core/rails/rail-adapters';
import { clabeCheckDigit } from '../../src/domain/funding';
import { wiseCustomerTransactionId } from '../../src/rails/wise/module';
import { startTestPartner, type TestPartner } from '../../tools/test-partner/partner';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;
let partner: TestPartner;
let biz: { id: string; sandbox: string; live: string };

async function waitFor<T>(fn: () => Promise<T | undefined | false | null>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const payout = async (id: string) => (await h.request('GET', `/v1/payouts/${id}`, { key: biz.live })).body;
const finalStatus = (id: string, statuses: string[], timeoutMs = 60_000) =>
  waitFor(async () => {
    const p = await payout(id);
    return statuses.includes(p.status) ? p : null;
  }, `payout ${id} to reach ${statuses.join('|')}`, timeoutMs);
const postings = async (id: string) =>
  (await h.db.selectFrom('ledger_postings').select('key').where('key', 'like', `payout:${id}:%`).orderBy('id').execute()).map((r) => r.key.split(':')[2]);
const instruction = (id: string) => h.db.selectFrom('rail_instructions').selectAll().where('payout_id', '=', id).orderBy('attempt', 'desc').executeTakeFirst();
const transfersOf = (id: string, attempt = 1) => partner.transfers().filter((t) => t.customerTransactionId === wiseCustomerTransactionId(id, attempt));

/** A valid 18-digit CLABE for `n`. */
function clabe(n: number): string {
  const first = `002180${String(n).padStart(11, '0')}`;
  return `${first}${clabeCheckDigit(first)}`;
}

/** Sends a live spei_mxn payout of 20 USDC to `name` (the test partner's magic words) and returns its id. */
async function livePayout(name: string, n: number): Promise<string> {
  const r = await h.request('POST', '/v1/payouts', {
    key: biz.live,
    body: { channel: 'spei_mxn', recipient: { type: 'bank_account', holder_name: name, clabe: clabe(n), recipient_kind: 'individual' }, source_amount: '20', reference: `Invoice ${n}` },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as string;
}

/** Posts a webhook to our route as the partner would. */
const postHook = (headers: Record<string, string>, body: string) => h.app.request('/hooks/partner/wise', { method: 'POST', headers, body });

beforeAll(async () => {
  partner = await startTestPartner({ stepMs: 100, hangMs: 4000 });
  h = await createHarness({
    env: { ...partner.env, RAIL_WISE_TIMEOUT: 'PT1S', RAIL_WISE_POLL_INTERVAL: 'PT0.5S', RAIL_WISE_WEBHOOK_LATE_AFTER: 'PT1S', RAIL_WISE_RETURN_WINDOW: 'PT10S', RAIL_WISE_RETURN_POLL_INTERVAL: 'PT1S' },
  });
  partner.setWebhookTarget(async ({ headers, body }) => (await postHook(headers, body)).status);
  await refreshRailHealth(h.core);
  await startRailPollers(h.core);
  biz = await h.business();
  // Fund the live balance: a USDC deposit received the core's way.
  const caller = { businessId: biz.id, environment: 'live' as const, keyId: 'test', role: 'owner' as const, policy: null };
  await receiveDeposit(h.core, caller, { source: 'crypto', amount: '1000', currency: 'USDC', externalId: `fund-${biz.id}` });
  await waitFor(async () => h.db.selectFrom('deposits').select('id').where('business_id', '=', biz.id).where('status', '=', 'credited').executeTakeFirst(), 'the live deposit credited');
}, 120_000);

afterAll(async () => {
  await h?.close();
  await partner?.stop();
});

describe('live payouts through the payout partner (test partner)', () => {
  it('the partner\'s channels are live while its connection works; a channel without a partner route stays paused', async () => {
    const ch = await h.request('GET', '/v1/channels', { key: biz.live });
    const status = (id: string) => ch.body.data.find((c: any) => c.id === id).status;
    expect(status('spei_mxn')).toBe('live');
    expect(status('pix_brl')).toBe('live');
    expect(status('bank_cad')).toBe('paused');
  });

  it('a live spei_mxn payout ends succeeded: one funded transfer at the partner, its rate and fee recorded beside ours', async () => {
    const id = await livePayout('Ana Lopez', 1);
    const done = await finalStatus(id, ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    const [t, ...more] = transfersOf(id);
    expect(more).toEqual([]);
    expect(t!.status).toBe('outgoing_payment_sent');
    expect(t!.targetCurrency).toBe('MXN');
    expect(t!.targetValue).toBe(done.destination_amount ?? t!.targetValue);
    expect(done.provider_reference).toBe(String(t!.id));
    const i = (await instruction(id))!;
    expect(i.rail).toBe('wise');
    expect(i.status).toBe('settled');
    expect(i.end_to_end_id).toBe(wiseCustomerTransactionId(id, 1));
    expect(i.details).toMatchObject({ transfer_id: String(t!.id), partner_rate: '17.250000', partner_state: 'outgoing_payment_sent', funded: 'true', partner_source_currency: 'USD' });
    expect(i.details!.partner_fee).toMatch(/^\d+\.\d{2}$/);
    expect(await postings(id)).toEqual(['hold', 'settle']);
    // The operator's view (npm run admin -- rail partner-transfers): the partner's rate and fee beside ours.
    const row = (await listPartnerTransfers(h.db)).map(renderPartnerTransfer).find((r) => r.payout_id === id)!;
    expect(row).toMatchObject({ rail: 'wise', partner_transfer_id: String(t!.id), partner_state: 'outgoing_payment_sent', partner_rate: '17.250000', partner_source_currency: 'USD', destination_currency: 'MXN' });
    expect(row.our_rate).toMatch(/^\d+(\.\d+)?$/);
    expect(row.partner_fee).toBe(i.details!.partner_fee);
  });

  it('a bounce after sent ends refunded with the partner\'s reason', async () => {
    const id = await livePayout('Berta BOUNCE Diaz', 2);
    const done = await finalStatus(id, ['refunded', 'failed']);
    expect(done.status).toBe('refunded');
    expect(done.failure).toMatchObject({ code: 'refunded_by_provider', rail_reason_code: 'bounced_back' });
    expect(await postings(id)).toEqual(['hold', 'settle', 'refund']);
    expect(transfersOf(id)).toHaveLength(1);
  });

  it('a refund after sent whose webhook was lost is found by polling within the return window: the payout ends refunded', async () => {
    let lost = 0;
    partner.setWebhookTarget(async ({ headers, body }) => {
      if (JSON.parse(body).data.current_state === 'funds_refunded') {
        lost++;
        return 503;
      }
      return (await postHook(headers, body)).status;
    });
    try {
      const id = await livePayout('Rosa REFUND Leon', 30);
      const done = await finalStatus(id, ['refunded', 'failed']);
      expect(done.status).toBe('refunded');
      expect(lost).toBeGreaterThan(0);
      expect(done.failure).toMatchObject({ code: 'refunded_by_provider', rail_reason_code: 'funds_refunded' });
      expect(await postings(id)).toEqual(['hold', 'settle', 'refund']);
      expect((await instruction(id))!.status).toBe('returned');
    } finally {
      partner.setWebhookTarget(async ({ headers, body }) => (await postHook(headers, body)).status);
    }
  });

  it('a cancelled transfer ends failed, hold released', async () => {
    const id = await livePayout('Carla CANCEL Ruiz', 3);
    const done = await finalStatus(id, ['failed', 'succeeded']);
    expect(done.status).toBe('failed');
    expect(done.failure).toMatchObject({ code: 'provider_declined', rail_reason_code: 'cancelled' });
    expect(await postings(id)).toEqual(['hold', 'release']);
  });

  it('a webhook with a bad signature is refused (401) and changes nothing; a replay outside the window too; a duplicate changes nothing', async () => {
    const id = await livePayout('Dora SILENT Vega', 4);
    const t = await waitFor(async () => transfersOf(id)[0], 'the transfer');
    const before = await h.db.selectFrom('rail_events').select('id').execute();
    const body = JSON.stringify({ data: { resource: { type: 'transfer', id: t.id, profile_id: 4242, account_id: t.targetAccount }, current_state: 'bounced_back', previous_state: 'processing', occurred_at: new Date().toISOString() }, subscription_id: 'x', event_type: 'transfers#state-change', schema_version: '2.0.0', sent_at: new Date().toISOString() });
    const forged = await postHook({ 'content-type': 'application/json', 'x-signature-sha256': Buffer.from('not a signature').toString('base64'), 'x-delivery-id': 'd1' }, body);
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as any).error.code).toBe('invalid_signature');
    const tampered = await postHook({ 'content-type': 'application/json', 'x-signature-sha256': partner.sign(body), 'x-delivery-id': 'd2' }, body.replace('bounced_back', 'funds_refunded'));
    expect(tampered.status).toBe(401);
    const old = body.replace(/"sent_at":"[^"]+"/, `"sent_at":"${new Date(Date.now() - 3_600_000).toISOString()}"`);
    const replay = await postHook({ 'content-type': 'application/json', 'x-signature-sha256': partner.sign(old), 'x-delivery-id': 'd3' }, old);
    expect(replay.status).toBe(401);
    expect(((await replay.json()) as any).error.code).toBe('replayed');
    expect(await h.db.selectFrom('rail_events').select('id').execute()).toEqual(before);
    // SILENT: no webhook ever comes; the poll of the transfer finds its final state.
    const done = await finalStatus(id, ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    expect(partner.webhooks().filter((w) => w.transferId === t.id)).toEqual([]);
    // The partner's own webhook for a state already recorded: accepted as a duplicate, nothing changes.
    const sent = JSON.stringify({ data: { resource: { type: 'transfer', id: t.id, profile_id: 4242, account_id: t.targetAccount }, current_state: 'outgoing_payment_sent', previous_state: 'funds_converted', occurred_at: new Date().toISOString() }, subscription_id: 'x', event_type: 'transfers#state-change', schema_version: '2.0.0', sent_at: new Date().toISOString() });
    const dup = await postHook({ 'content-type': 'application/json', 'x-signature-sha256': partner.sign(sent), 'x-delivery-id': 'd4' }, sent);
    expect(dup.status).toBe(200);
    expect(await dup.json()).toEqual({ received: true, duplicate: true });
    expect((await payout(id)).status).toBe('succeeded');
  });

  it('duplicated and out-of-order webhooks end as the partner\'s final state says', async () => {
    const twice = await livePayout('Elsa TWICE Mora', 5);
    const shuffled = await livePayout('Fina SHUFFLE Gil', 6);
    expect((await finalStatus(twice, ['succeeded', 'failed'])).status).toBe('succeeded');
    expect((await finalStatus(shuffled, ['succeeded', 'failed'])).status).toBe('succeeded');
    expect(await postings(twice)).toEqual(['hold', 'settle']);
    const tw = transfersOf(twice)[0]!;
    // Each state twice; the second copy of the last goes out after the payout has settled.
    await waitFor(async () => partner.webhooks().filter((w) => w.transferId === tw.id).length >= 6, 'six webhooks', 10_000);
    expect(partner.webhooks().filter((w) => w.transferId === tw.id).length).toBe(6);
  });

  it('a create that times out after the partner made the transfer: the attempt is asked again with the same customerTransactionId and finds it; exactly one transfer', async () => {
    const id = await livePayout('Gala TIMEOUT Paz', 7);
    const done = await finalStatus(id, ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    expect(transfersOf(id)).toHaveLength(1);
    expect(partner.transfers().filter((t) => t.holderName.includes('TIMEOUT'))).toHaveLength(1);
    expect((await instruction(id))!.attempt).toBe(1);
  });

  it('a worker stopped during the create call, after the partner made the transfer, leaves exactly one transfer', async () => {
    const id = await livePayout('Hana TIMEOUT Sol', 8);
    await waitFor(async () => transfersOf(id)[0], 'the transfer made at the partner (its answer hangs)');
    await h.stopWorker();
    await new Promise((r) => setTimeout(r, 500));
    await h.startWorker();
    const done = await finalStatus(id, ['succeeded', 'failed'], 90_000);
    expect(done.status).toBe('succeeded');
    expect(transfersOf(id)).toHaveLength(1);
    expect(transfersOf(id, 2)).toHaveLength(0);
  }, 120_000);

  it('a recipient the partner cannot pay as saved is refused at creation: 422 naming the field', async () => {
    const r = await h.request('POST', '/v1/payouts', {
      key: biz.live,
      body: { channel: 'spei_mxn', recipient: { type: 'bank_account', holder_name: 'Madonna', clabe: clabe(9), recipient_kind: 'individual' }, source_amount: '20' },
    });
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({ code: 'recipient_not_ready', param: 'recipient.holder_name' });
  });

  it('a live pix_brl payout ends succeeded', async () => {
    const r = await h.request('POST', '/v1/payouts', {
      key: biz.live,
      body: { channel: 'pix_brl', recipient: { type: 'bank_account', holder_name: 'Joana Silva', pix_key: 'joana@example.com', tax_id: '12345678909', recipient_kind: 'individual' }, source_amount: '20' },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect((await finalStatus(r.body.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    expect(transfersOf(r.body.id)[0]!.targetCurrency).toBe('BRL');
  });

  it('a partner that cannot be reached pauses its channels (the connection check), as a bank rail\'s do', async () => {
    await partner.stop();
    expect((await refreshRailHealth(h.core)).wise).toBe('failing');
    const ch = await h.request('GET', '/v1/channels', { key: biz.live });
    expect(ch.body.data.find((c: any) => c.id === 'spei_mxn').status).toBe('paused');
    expect(ch.body.data.find((c: any) => c.id === 'pix_brl').status).toBe('paused');
    const r = await h.request('POST', '/v1/payouts', {
      key: biz.live,
      body: { channel: 'spei_mxn', recipient: { type: 'bank_account', holder_name: 'Ana Lopez', clabe: clabe(10), recipient_kind: 'individual' }, source_amount: '20' },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'channel_unavailable', param: 'channel' });
  }, 30_000);
});
