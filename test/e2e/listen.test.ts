import { type ChildProcess, spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSurfaceA } from '../../src/core/webhook-signature';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * `npm run listen` (tools/listen.ts, docs/webhooks.md "Watching events locally"; issue #40): it
 * registers its loopback receiver on A, B and C, prints a verified payout.succeeded, answers 400 to
 * a delivery signed with another secret, and deletes its endpoints on Ctrl-C.
 */
let h: Harness;
let server: ServerType;
let url: string;
let key: string;
let listener: ChildProcess;
let output = '';

const waitFor = async (re: RegExp, ms = 60_000) => {
  const deadline = Date.now() + ms;
  while (!re.test(output)) {
    if (Date.now() > deadline) throw new Error(`listen never printed ${re}:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return output.match(re)!;
};

beforeAll(async () => {
  h = await createHarness();
  key = (await h.business()).sandbox;
  server = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  listener = spawn(process.execPath, ['--import', 'tsx', 'tools/listen.ts', '--key', key, '--api', url], { cwd: process.cwd(), detached: true });
  listener.stdout!.on('data', (d) => (output += d));
  listener.stderr!.on('data', (d) => (output += d));
  await waitFor(/^Ready/m);
});

afterAll(async () => {
  if (listener && listener.exitCode === null) process.kill(-listener.pid!, 'SIGKILL');
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await h?.close();
});

describe('npm run listen', () => {
  it('registers on the three surfaces and prints a verified payout.succeeded', async () => {
    expect(output).toMatch(/Surface A: endpoint we_\S+ -> http:\/\/127\.0\.0\.1:\d+\/a/);
    expect(output).toMatch(/Surface B: endpoint we_\S+ -> http:\/\/127\.0\.0\.1:\d+\/b/);
    expect(output).toMatch(/Surface C: endpoint we_\S+ -> http:\/\/127\.0\.0\.1:\d+\/c/);
    await h.request('POST', '/sandbox/v1/sandbox/fund', { key, body: { amount: '100' } });
    const rcp = await h.request('POST', '/sandbox/v1/recipients', {
      key,
      body: { type: 'bank_account', country: 'MX', currency: 'MXN', name: 'Ana López', bank_account: { holder_name: 'Ana López', clabe: '002010077777777771', recipient_kind: 'individual' } },
    });
    const po = await h.request('POST', '/sandbox/v1/payouts', { key, body: { channel: 'spei_mxn', recipient_id: rcp.body.id, source_amount: '10' } });
    expect(po.status).toBe(201);
    await waitFor(new RegExp(` A {2}payout\\.succeeded +${po.body.id} succeeded {2}verified evt_`));
    // Surface B's layout too: a Surface B disbursement's created event.
    const d = await h.request('POST', '/sandbox/claim/v1/disbursements', { key, body: { recipientEmail: 'ana@example.com', amountUsd: '5.00' } });
    expect(d.status).toBe(201);
    await waitFor(new RegExp(` B {2}disbursement\\.created +${d.body.id} pending {2}verified evt_`));
  });

  it('answers 400 and prints SIGNATURE INVALID for a delivery signed with another secret', async () => {
    const port = (await waitFor(/-> http:\/\/127\.0\.0\.1:(\d+)\/a/))[1];
    const body = JSON.stringify({ id: 'evt_forged', type: 'payout.succeeded', data: { object: { id: 'po_forged', status: 'succeeded' } } });
    const res = await fetch(`http://127.0.0.1:${port}/a`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Service-Signature': signSurfaceA('whsec_not_the_secret', body, Date.now() / 1000) },
      body,
    });
    expect(res.status).toBe(400);
    await waitFor(/ A {2}SIGNATURE INVALID/);
    expect(output).not.toMatch(/po_forged/);
  });

  it('deletes its endpoints on Ctrl-C', async () => {
    const exited = new Promise<number | null>((resolve) => listener.once('exit', (code) => resolve(code)));
    process.kill(-listener.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    expect(output.match(/Surface [ABC]: endpoint we_\S+ deleted/g)?.length).toBe(3);
    const a = await h.request('GET', '/sandbox/v1/webhooks', { key });
    const c = await h.request('GET', '/sandbox/guide/v1/webhooks', { key });
    expect([a.body.data.length, c.body.data.length]).toEqual([0, 0]);
  });
});
