import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '@octokit/webhooks-methods';
import { LoopbackEndpoints } from './loopback-endpoints';

/**
 * The Surface B part of `npm run demo` (tools/demo.ts calls {@link tourSurfaceB}): against a running
 * `npm run dev`, funds the sandbox, registers a webhook receiver with its own secret, sends money to
 * a phone number, opens the claim page and claims it as the recipient (start, then a payout
 * method), and prints every signed event received, each verified with @octokit/webhooks-methods.
 * Returns false when something went wrong (a bad signature, a missing event). Its webhook endpoint
 * is deleted when the tour ends; it is remembered in `endpoints` (the demo's, when given) until then,
 * so that a Ctrl-C deletes it too (tools/loopback-endpoints.ts).
 */
export async function tourSurfaceB(base: string, key: string, endpoints = new LoopbackEndpoints(base, key)): Promise<boolean> {
  const B = `${base}/sandbox/claim/v1`;
  const secret = `demo-secret-${Date.now().toString(36)}-0123456789`;
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${B}${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await r.json()) as Record<string, unknown>;
    if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
    return { json, headers: r.headers };
  };
  const events: { type: string; status: unknown; verified: boolean }[] = [];
  const receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      void verify(secret, raw, String(req.headers['x-service-signature'] ?? '')).then((ok) => {
        const e = JSON.parse(raw) as { type: string; data: { status: unknown } };
        events.push({ type: e.type, status: e.data.status, verified: ok });
        res.writeHead(ok ? 200 : 400).end();
      });
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  try {
    console.log('\n== Surface B: fund, send to a phone, claim in the page, signed events');
    console.log('  fund:', (await call('POST', '/sandbox/fund', { amountUsd: '100.00' })).json);
    const endpoint = (await call('POST', '/webhooks', { url: hookUrl, events: ['disbursement.*'], secret })).json as { id: string };
    endpoints.add({ surface: 'B', base: '/sandbox/claim/v1', id: endpoint.id });
    const { json: d, headers } = await call('POST', '/disbursements', {
      recipientPhone: '+525512345678',
      amountUsd: '25.00',
      reference: 'demo-b',
      note: 'Gracias!',
    });
    console.log(`  disbursement ${d.id} ${d.status}; X-RateLimit-Remaining ${headers.get('X-RateLimit-Remaining')} of ${headers.get('X-RateLimit-Limit')}`);
    let claimUrl: string | null = null;
    for (let i = 0; i < 100 && !claimUrl; i++) {
      claimUrl = (await call('GET', `/disbursements/${d.id}`)).json.claimUrl as string | null;
      if (!claimUrl) await new Promise((r) => setTimeout(r, 100));
    }
    if (!claimUrl) throw new Error('the claim link did not open');
    const path = new URL(claimUrl).pathname;
    console.log(`  claim page: ${base}${path}`);
    await fetch(`${base}${path}/start`, { method: 'POST', redirect: 'manual' });
    console.log(`  recipient started the claim: ${(await call('GET', `/disbursements/${d.id}`)).json.status}`);
    // A Mexican bank account: the page asks the account and the claimant's identity (docs/screening.md "Identity at claim time").
    const form = new URLSearchParams({
      method: 'bank_transfer', route: 'spei_mxn', holder_name: 'MARIA LOPEZ GARCIA', clabe: '032180000118359719', recipient_kind: 'individual',
      full_name: 'María López García', date_of_birth: '1990-05-10', national_id_kind: 'curp', national_id: 'LOGM900510MDFPRR07',
    });
    await fetch(`${base}${path}`, { method: 'POST', redirect: 'manual', body: form });
    let status = '';
    for (let i = 0; i < 100 && status !== 'delivered'; i++) {
      status = String((await call('GET', `/disbursements/${d.id}`)).json.status);
      if (status !== 'delivered') await new Promise((r) => setTimeout(r, 100));
    }
    console.log(`  after choosing bank_transfer: ${status}`);
    const deadline = Date.now() + 15_000;
    while (events.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    for (const e of events) console.log(`  ${e.verified ? 'verified' : 'BAD SIG '} ${e.type.padEnd(24)} ${String(e.status)}`);
    return status === 'delivered' && events.length >= 3 && events.every((e) => e.verified);
  } catch (err) {
    console.error(`  Surface B tour failed: ${(err as Error).message}`);
    return false;
  } finally {
    await endpoints.deleteAll('B');
    receiver.close();
  }
}
