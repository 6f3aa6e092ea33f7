/**
 * USDC on Solana against the test chain (litesvm behind Solana's JSON-RPC; docs/getting-paid.md
 * "Crypto deposits"): a finalized transfer to a business's deposit address is received at
 * confirmed (deposit.received) and credited once at finalized (deposit.credited, balance up by the
 * amount), also with two watchers polling at once and a watcher killed mid-way; a transfer dropped
 * before finality is never credited; another mint and failed transactions are ignored; under the
 * minimum stays received; the real watcher workflow credits; a crypto payment request is paid.
 */
import { generateKeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMetrics } from '../../src/core/metrics/scrape';
import { associatedTokenAccount, signerFromHexSeed } from '../../src/solana/keys';
import { pollSolanaDeposits } from '../../src/core/funding/crypto-watch';
import { startSolanaWatchers } from '../../src/core/funding/crypto-lifecycle';
import { type SolanaRpc, solanaRpc } from '../../src/solana/rpc';
import { solanaSweepWorkflowId } from '../../workflows/solana-sweep.contract';
import { solanaWatchWorkflowId } from '../../workflows/solana-watch.contract';
import { type ChainRpcServer, createPayerWithMint, sendToken, startChainRpc, TestChain, type TestPayer } from '../../tools/solana-test-chain';
import { launchBrowser, serveHarness } from '../helpers/browser';
import { createHarness, type Harness } from '../helpers/harness';

let chain: TestChain;
let rpcServer: ChainRpcServer;
let h: Harness;
let usdc: TestPayer;
let otherMint: TestPayer;
const SEED = '5e'.repeat(32);
const FEE_PAYER_SEED = 'fe'.repeat(32);
let treasury: string;

beforeAll(async () => {
  chain = new TestChain({ finalityDepth: 4 });
  rpcServer = await startChainRpc(chain);
  usdc = await createPayerWithMint(chain, 1_000_000_000_000n);
  otherMint = await createPayerWithMint(chain, 1_000_000_000_000n);
  // The treasury's USDC token account (created by a transfer of 0) and a funded fee payer.
  const treasuryOwner = await generateKeyPairSigner();
  await sendToken(chain, usdc, treasuryOwner.address, 0n);
  treasury = await associatedTokenAccount(treasuryOwner.address, usdc.mint);
  chain.airdrop((await signerFromHexSeed(FEE_PAYER_SEED)).address, 1_000_000_000n);
  chain.advance(10);
  h = await createHarness({
    env: {
      SOLANA_RPC_URL: rpcServer.url,
      SOLANA_USDC_MINT: usdc.mint,
      SOLANA_DEPOSIT_SEED: SEED,
      SOLANA_MINIMUM_DEPOSIT: '1.00',
      SOLANA_POLL_INTERVAL: 'PT0.2S',
      SOLANA_TREASURY_TOKEN_ACCOUNT: treasury,
      SOLANA_FEE_PAYER_SEED: FEE_PAYER_SEED,
      SOLANA_SWEEP_INTERVAL: 'PT0.5S',
    },
  });
});
afterAll(async () => {
  await h?.close();
  await rpcServer?.close();
  chain?.close();
});

const live = (key: string, method: string, path: string, body?: unknown) => h.request(method, path, { key, body });

async function newBusiness() {
  const b = await h.business({ verified: true });
  const r = await live(b.live, 'GET', '/claim/v1/funding/crypto');
  expect(r.status).toBe(200);
  return { ...b, address: r.body.walletAddress as string, tokenAccount: r.body.tokenAccount as string };
}

const poll = (rpc?: SolanaRpc) => pollSolanaDeposits(h.core, 'live', rpc ? { rpc } : {});

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const deposits = (businessId: string) => h.db.selectFrom('deposits').selectAll().where('business_id', '=', businessId).orderBy('id').execute();
const balance = async (key: string) => (await live(key, 'GET', '/v1/balance')).body.available as string;
const eventTypes = async (depositId: string) =>
  (await h.db.selectFrom('events').select(['type']).where('object_id', '=', depositId).orderBy('created_at').orderBy('id').execute()).map((e) => e.type);
const postings = (depositId: string) => h.db.selectFrom('ledger_postings').selectAll().where('key', '=', `deposit:${depositId}:credit`).execute();
const allCredited = async (businessId: string, n: number) => {
  const d = await deposits(businessId);
  return d.length === n && d.every((x) => x.status === 'credited') ? d : undefined;
};

describe('Solana deposit watcher', () => {
  it('received at confirmed, credited once at finalized (events in order, balance up by the amount)', async () => {
    const b = await newBusiness();
    const sig = await sendToken(chain, usdc, b.address, 25_500_000n, { memo: 'order 17' });
    await poll();
    expect(await deposits(b.id)).toEqual([]); // processed only: not yet seen
    chain.advance(1);
    await poll();
    const [dep] = await deposits(b.id);
    expect(dep).toMatchObject({ source: 'crypto', status: 'received', currency: 'USDC', amount: 25_500_000n, external_id: `${sig}:${b.tokenAccount}`, reference: 'order 17' });
    expect(await balance(b.live)).toBe('0.00');
    chain.advance(4);
    await poll();
    await waitFor('credit', () => allCredited(b.id, 1));
    expect(await balance(b.live)).toBe('25.50');
    expect(await eventTypes(dep.id)).toEqual(['deposit.received', 'deposit.credited']);
    expect(await postings(dep.id)).toHaveLength(1);
    // Polling again changes nothing.
    await poll();
    await poll();
    expect((await deposits(b.id)).length).toBe(1);
    expect(await balance(b.live)).toBe('25.50');
    const surfaceB = await live(b.live, 'GET', '/claim/v1/funding/deposits');
    expect(surfaceB.body.data[0]).toMatchObject({ source: 'crypto', status: 'credited', amount: '25.50', currency: 'USDC' });
  });

  it('a transfer dropped before finality is never credited (deposit dropped); another mint, a failed transaction and an outgoing one are ignored; under the minimum stays received', async () => {
    const b = await newBusiness();
    const dropped = await sendToken(chain, usdc, b.address, 7_000_000n);
    chain.advance(1);
    await poll();
    const [dep] = await deposits(b.id);
    expect(dep.status).toBe('received');
    chain.drop(dropped);
    // another mint to the same owner (lands in another token account), a failed USDC transfer, and a small one
    await sendToken(chain, otherMint, b.address, 50_000_000n);
    const failed = await sendToken(chain, usdc, b.address, 10n ** 18n, { skipPreflight: true });
    const small = await sendToken(chain, usdc, b.address, 400_000n);
    chain.advance(6);
    await poll();
    await poll();
    const rows = await deposits(b.id);
    expect(rows.map((d) => [d.amount, d.status])).toEqual([
      [7_000_000n, 'dropped'],
      [400_000n, 'received'],
    ]);
    expect(await eventTypes(dep.id)).toEqual(['deposit.received', 'deposit.dropped']);
    expect(await postings(dep.id)).toHaveLength(0);
    const transfers = await h.db.selectFrom('crypto_transfers').select(['signature', 'status']).where('business_id', '=', b.id).execute();
    expect(Object.fromEntries(transfers.map((t) => [t.signature, t.status]))).toMatchObject({ [dropped]: 'dropped', [failed]: 'ignored', [small]: 'below_minimum' });
    expect(await balance(b.live)).toBe('0.00');
  });

  it('a watcher that died between recording a transfer and linking its deposit: dropped meanwhile, the deposit is dropped; never made, the next scan makes it and it is credited once', async () => {
    const b = await newBusiness();
    // Died after the deposit was made, before it was linked; the transaction then vanishes.
    const gone = await sendToken(chain, usdc, b.address, 3_000_000n);
    chain.advance(1);
    await poll();
    const [dep] = await deposits(b.id);
    expect(dep.status).toBe('received');
    await h.db.updateTable('crypto_transfers').set({ deposit_id: null }).where('signature', '=', gone).execute();
    chain.drop(gone);
    chain.advance(6);
    await poll();
    expect((await deposits(b.id)).map((d) => d.status)).toEqual(['dropped']);
    expect(await eventTypes(dep.id)).toEqual(['deposit.received', 'deposit.dropped']);
    // Died after the transfer was recorded, before its deposit was made; the transaction finalizes.
    const kept = await sendToken(chain, usdc, b.address, 4_000_000n);
    chain.advance(1);
    const [a] = await h.db.selectFrom('crypto_deposit_addresses').selectAll().where('token_account', '=', b.tokenAccount).execute();
    const seen = await h.db.selectFrom('crypto_transfers').select('slot').where('signature', '=', gone).executeTakeFirstOrThrow();
    await h.db
      .insertInto('crypto_transfers')
      .values({ signature: kept, token_account: b.tokenAccount, business_id: b.id, environment: 'live', network: a.network, mint: usdc.mint, amount: 4_000_000n, slot: seen.slot + 7n, status: 'received', deposit_id: null })
      .execute();
    await poll();
    chain.advance(6);
    await poll();
    const credited = await waitFor('credit', async () => (await deposits(b.id)).find((d) => d.amount === 4_000_000n && d.status === 'credited'));
    expect(await postings(credited.id)).toHaveLength(1);
    expect(await h.db.selectFrom('crypto_transfers').select(['status', 'deposit_id']).where('signature', '=', kept).executeTakeFirst()).toEqual({ status: 'credited', deposit_id: credited.id });
    expect(await balance(b.live)).toBe('4.00');
  });

  it('two watchers at once, one killed mid-way, then restarted: each finalized transfer credited exactly once', async () => {
    const b = await newBusiness();
    const amounts = [1_000_000n, 2_000_000n, 3_000_000n, 4_000_000n];
    for (const a of amounts) await sendToken(chain, usdc, b.address, a);
    chain.advance(1);
    // A watcher that dies after a few RPC calls (its process killed mid-poll) and one that runs on.
    const real = solanaRpc(rpcServer.url);
    let calls = 0;
    const dying: SolanaRpc = {
      ...real,
      getTransaction: async (sig, c) => {
        if (++calls > 2) throw new Error('killed');
        return real.getTransaction(sig, c);
      },
    };
    const results = await Promise.allSettled([poll(dying), poll(), poll()]);
    expect(results[0].status).toBe('rejected');
    chain.advance(5);
    calls = 0;
    await Promise.allSettled([poll(dying), poll(), poll()]);
    await Promise.all([poll(), poll()]);
    const credited = await waitFor('credits', () => allCredited(b.id, 4));
    expect(credited.map((d) => d.amount).sort()).toEqual(amounts);
    for (const d of credited) expect(await postings(d.id)).toHaveLength(1);
    expect(await balance(b.live)).toBe('10.00');
  });

  it('the watcher workflow (started as a worker starts it) credits a transfer; a crypto payment request is paid on the chain', async () => {
    const b = await newBusiness();
    const link = await live(b.live, 'POST', '/v1/payment-links', { name: 'Invoices', methods: ['crypto'] });
    expect(link.status).toBe(201);
    expect(link.body.methods).toEqual([{ type: 'crypto', ready: true }]);
    const req = await live(b.live, 'POST', '/v1/payment-requests', {
      payment_link_id: link.body.id,
      amount: '12.34',
      currency: 'USD',
      reference: 'INV-2026-001',
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(req.status).toBe(201);
    // The payer reads the address and the amount on the request's page (headless Chromium).
    const server = await serveHarness(h);
    const { browser, close } = await launchBrowser();
    try {
      const page = await browser.newPage();
      const res = await page.goto(`${server.origin}${new URL(req.body.url).pathname}`, { waitUntil: 'load' });
      expect(res?.status()).toBe(200);
      expect(await page.$eval('#crypto-address', (e) => e.textContent)).toBe(b.address);
      expect(await page.$eval('#crypto-amount', (e) => e.textContent)).toBe('12.34 USDC');
    } finally {
      await close();
      await server.close();
    }

    expect(await startSolanaWatchers(h.core)).toEqual(['live']);
    await sendToken(chain, usdc, b.address, 12_340_000n, { memo: 'INV-2026-001' });
    const ticker = setInterval(() => chain.advance(1), 100);
    try {
      const [dep] = await waitFor('credit by the workflow', () => allCredited(b.id, 1));
      expect(dep.payment_request_id).toBe(req.body.id);
      expect(dep.match_result).toBe('matched');
    } finally {
      clearInterval(ticker);
    }
    const paid = await waitFor('paid', async () => {
      const r = await live(b.live, 'GET', `/v1/payment-requests/${req.body.id}`);
      return r.body.status === 'paid' ? r : undefined;
    });
    expect(paid.body.deposit_id).toEqual(expect.stringMatching(/^dep_/));
    expect(await balance(b.live)).toBe('12.34');
    const desc = await h.core.temporal.workflow.getHandle(solanaWatchWorkflowId('live')).describe();
    expect(desc.status.name).toBe('RUNNING');
    // The watcher's metrics: head and reached slots, lag, deposits waiting for finality.
    const metrics = await renderMetrics(h.db);
    expect(metrics).toMatch(/solana_watcher_head_slot\{environment="live"\} [1-9]/);
    expect(metrics).toMatch(/solana_watcher_lag_slots\{environment="live"\} \d+/);
    expect(metrics).toMatch(/solana_deposits_awaiting_finality\{environment="live"\} 0/);
  });

  it('the watcher workflow across a worker restart: received, worker stopped, finalized meanwhile, worker back: credited once', async () => {
    const b = await newBusiness();
    await sendToken(chain, usdc, b.address, 3_330_000n);
    chain.advance(1);
    await waitFor('received by the workflow', async () => (await deposits(b.id))[0]?.status === 'received');
    await h.stopWorker();
    chain.advance(6);
    await new Promise((r) => setTimeout(r, 500));
    expect((await deposits(b.id))[0]!.status).toBe('received');
    await h.startWorker();
    const [dep] = await waitFor('credited after the restart', () => allCredited(b.id, 1), 60_000);
    expect(await postings(dep!.id)).toHaveLength(1);
    expect(await eventTypes(dep!.id)).toEqual(['deposit.received', 'deposit.credited']);
    expect(await balance(b.live)).toBe('3.33');
  });

  it('the sweep workflow moves exactly the credited amounts to the treasury (never an uncredited deposit), fees from the fee payer', async () => {
    const rpc = solanaRpc(rpcServer.url);
    const credited = async () =>
      BigInt(
        (await h.db.selectFrom('crypto_transfers').select((eb) => eb.fn.sum<string>('amount').as('s')).where('status', '=', 'credited').executeTakeFirstOrThrow()).s ?? '0',
      );
    const total = await credited();
    expect(total).toBe(25_500_000n + 4_000_000n + 10_000_000n + 12_340_000n + 3_330_000n);
    const ticker = setInterval(() => chain.advance(1), 100);
    try {
      // The sweeper was started with the watcher (startSolanaWatchers) and passes every 0.5 s.
      await waitFor(
        'sweeps confirmed',
        async () => {
          const rows = await h.db.selectFrom('crypto_sweeps').select(['status', 'amount']).execute();
          return rows.length > 0 && rows.every((r) => r.status === 'confirmed') && rows.reduce((a, r) => a + BigInt(r.amount), 0n) === total;
        },
        60_000,
      );
    } finally {
      clearInterval(ticker);
    }
    expect(await rpc.getTokenAccountAmount(treasury)).toBe(total);
    // The deposit under the minimum (0.40, never credited) stays where it landed.
    const small = await h.db.selectFrom('crypto_transfers').selectAll().where('status', '=', 'below_minimum').executeTakeFirstOrThrow();
    expect(await rpc.getTokenAccountAmount(small.token_account)).toBe(400_000n);
    // Another pass moves nothing more.
    chain.advance(5);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await rpc.getTokenAccountAmount(treasury)).toBe(total);
    expect(await renderMetrics(h.db)).toMatch(/solana_fee_payer_lamports\{environment="live"\} [1-9]/);
    for (const id of [solanaWatchWorkflowId('live'), solanaSweepWorkflowId('live')]) await h.core.temporal.workflow.getHandle(id).terminate('test done');
  });
});
