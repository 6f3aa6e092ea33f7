import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  const b = await h.business();
  key = b.sandbox;
  const f = await h.request('POST', '/sandbox/v1/sandbox/fund', { key, body: { amount: '100' } });
  expect(f.status).toBe(200);
});
afterAll(async () => h?.close());

async function waitStatus(id: string, status: string): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await h.request('GET', `/sandbox/v1/payouts/${id}`, { key });
    if (r.body.status === status) return r.body;
    if (Date.now() > deadline) throw new Error(`payout ${id} stayed ${r.body.status}, wanted ${status}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

describe('public claim page /c/{token}', () => {
  it('shows the amount and message, and a claim through the form delivers the payout', async () => {
    const created = await h.request('POST', '/sandbox/v1/payouts', {
      key,
      body: { channel: 'claim_link', recipient: { type: 'email', address: 'ana@example.com' }, source_amount: '12', message: 'Gracias <3' },
    });
    expect(created.status).toBe(201);
    const awaiting = await waitStatus(created.body.id, 'awaiting_claim');
    const url = new URL(awaiting.claim.url);
    expect(url.pathname).toMatch(/^\/c\/[\w-]+$/);

    const pageRes = await h.request('GET', url.pathname);
    expect(pageRes.status).toBe(200);
    expect(pageRes.text).toContain('12.00 USD');
    expect(pageRes.text).toContain('Gracias &lt;3'); // escaped
    expect(pageRes.text).not.toContain('value="bank_transfer"');
    // Step 1 (Surface B `claimed`): start the claim; the page then lists the methods.
    const start = await h.app.request(`${url.pathname}/start`, { method: 'POST' });
    expect(start.status).toBe(303);
    expect((await h.request('GET', url.pathname)).text).toContain('value="bank_transfer"');

    const claim = await h.app.request(url.pathname, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'method=bank_transfer',
    });
    expect(claim.status).toBe(303);
    const done = await waitStatus(created.body.id, 'succeeded');
    expect(done.claim.method).toBe('bank_transfer');

    const after = await h.request('GET', url.pathname);
    expect(after.status).toBe(200);
    expect(after.text).toContain('This payment was claimed');
    expect(after.text).not.toContain('<form');
  });

  it('an unknown token is a 404 page, and a bad method changes nothing', async () => {
    expect((await h.request('GET', '/c/nope')).status).toBe(404);
    const created = await h.request('POST', '/sandbox/v1/payouts', {
      key,
      body: { channel: 'claim_link', recipient: { type: 'phone', number: '+525512345678' }, source_amount: '5' },
    });
    const awaiting = await waitStatus(created.body.id, 'awaiting_claim');
    const path = new URL(awaiting.claim.url).pathname;
    const bad = await h.app.request(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'method=cash',
    });
    expect(bad.status).toBe(400);
    expect((await h.request('GET', `/sandbox/v1/payouts/${created.body.id}`, { key })).body.status).toBe('awaiting_claim');
  });
});
