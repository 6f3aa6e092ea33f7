/**
 * The pieces of `npm run chaos` and `npm run bench` that decide what the audit sees
 * (tools/stack/proxy.ts, tools/chaos/rng.ts, tools/chaos/receiver.ts, tools/stack/proc-stats.ts):
 * the proxy alternates, skips a refused upstream and answers 502 when one dies mid-request; the
 * generator replays a seed; the receiver verifies signatures and fails on demand.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver } from '../../tools/chaos/receiver';
import { nextTransferAmount } from '../../tools/chaos/solana';
import { createPayerWithMint, sendToken, TestChain } from '../../tools/solana-test-chain';
import { Rng } from '../../tools/chaos/rng';
import { cpuMs, treeCpuMs } from '../../tools/stack/proc-stats';
import { type Proxy, startProxy } from '../../tools/stack/proxy';
import { freePort } from '../../src/temporal/dev-server';

const servers: Server[] = [];
let proxy: Proxy | undefined;

function upstream(name: string, behaviour: 'answer' | 'cut' = 'answer'): Promise<number> {
  const server = createServer((req, res) => {
    if (behaviour === 'cut') return req.socket.destroy();
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ name, body, path: req.url })));
  });
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

describe('stack proxy', () => {
  it('alternates between upstreams and forwards path and body', async () => {
    const ports = [await upstream('a'), await upstream('b')];
    proxy = await startProxy(() => ports);
    const names: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${proxy.url}/x?i=${i}`, { method: 'POST', body: `n${i}` });
      const json = (await res.json()) as { name: string; body: string; path: string };
      expect(json.path).toBe(`/x?i=${i}`);
      expect(json.body).toBe(`n${i}`);
      names.push(json.name);
    }
    expect(names).toEqual(['a', 'b', 'a', 'b']);
  });

  it('sends a request an upstream refused to the other one', async () => {
    const down = await freePort(); // nothing listens there: connection refused
    const ports = [down, await upstream('b')];
    proxy = await startProxy(() => ports);
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${proxy.url}/`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { name: string }).name).toBe('b');
    }
    expect(proxy.badGateways).toBe(0);
  });

  it('answers 502 when the upstream cuts the connection mid-request (the client must retry)', async () => {
    const ports = [await upstream('cut', 'cut')];
    proxy = await startProxy(() => ports);
    const res = await fetch(`${proxy.url}/`, { method: 'POST', body: 'x' });
    expect(res.status).toBe(502);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('bad_gateway');
    expect(proxy.badGateways).toBe(1);
  });
});

describe('chaos generator', () => {
  it('replays the same sequence for the same seed and another for another seed', () => {
    const run = (seed: number) => {
      const r = new Rng(seed);
      return Array.from({ length: 20 }, () => r.int(0, 1000));
    };
    expect(run(7)).toEqual(run(7));
    expect(run(7)).not.toEqual(run(8));
    const r = new Rng(1);
    for (let i = 0; i < 200; i++) {
      const v = r.int(3, 5);
      expect(v).toBeGreaterThanOrEqual(3);
      expect(v).toBeLessThanOrEqual(5);
    }
    expect(new Rng(3).weighted([[0, 'never'], [1, 'always']])).toBe('always');
  });

  it('never sends two USDC transfers of one amount: on the test chain they are one transaction, and a dropped one would come back', async () => {
    const chain = new TestChain({ finalityDepth: 8 });
    const payer = await createPayerWithMint(chain, 10n ** 12n);
    const to = payer.payer.address;
    const first = await sendToken(chain, payer, to, 5_000_000n);
    chain.advance(1);
    chain.drop(first);
    expect(await sendToken(chain, payer, to, 5_000_000n)).toBe(first);
    expect(chain.signatureStatuses([first])[0]).not.toBeNull();
    const used = new Set<bigint>();
    const r = new Rng(11);
    const amounts = Array.from({ length: 3000 }, () => nextTransferAmount(r, used));
    expect(new Set(amounts).size).toBe(3000);
    for (const a of amounts) {
      expect(a).toBeGreaterThanOrEqual(1_000_000n);
      expect(a).toBeLessThanOrEqual(500_990_000n);
    }
    chain.close();
  });
});

describe('chaos webhook receiver', () => {
  it('records signed deliveries with 200, refuses bad signatures, fails while failing', async () => {
    const receiver = await startReceiver(new Rng(5));
    receiver.secret = 'whsec_test';
    try {
      const body = JSON.stringify({ id: 'evt_1', type: 'payout.succeeded' });
      const t = Math.floor(Date.now() / 1000);
      const sig = `t=${t},v1=${createHmac('sha256', 'whsec_test').update(`${t}.${body}`).digest('hex')}`;
      const ok = await fetch(receiver.url, { method: 'POST', body, headers: { 'Service-Signature': sig } });
      expect(ok.status).toBe(200);
      const bad = await fetch(receiver.url, { method: 'POST', body, headers: { 'Service-Signature': `t=${t},v1=00` } });
      expect(bad.status).toBe(400);
      expect(receiver.badSignatures).toBe(1);

      receiver.setFailing(true);
      for (let i = 0; i < 5; i++) {
        const r = await fetch(receiver.url, { method: 'POST', body, headers: { 'Service-Signature': sig } }).catch(() => null);
        if (r) expect(r.status).toBe(503);
      }
      receiver.setFailing(false);
      expect(receiver.recoveredAt).toBeGreaterThan(0);
      expect(receiver.hits.filter((h) => h.eventId === 'evt_1' && h.answered === 200)).toHaveLength(1);
      expect(receiver.hits.filter((h) => h.answered === 503 || h.answered === 0)).toHaveLength(5);
    } finally {
      await receiver.close();
    }
  });
});

describe('proc stats', () => {
  it('reads this process\'s CPU time and is 0 for a process that does not exist', () => {
    let x = 0;
    for (let i = 0; i < 5e6; i++) x += i;
    expect(x).toBeGreaterThan(0);
    const own = cpuMs(process.pid);
    expect(own).toBeGreaterThan(0);
    // The tree adds live and reaped children; read later, it is never less.
    expect(treeCpuMs(process.pid)).toBeGreaterThanOrEqual(own);
    expect(cpuMs(2 ** 22 + 12345)).toBe(0);
  });
});
