/**
 * The Solana part of `npm run demo:live` (docs/getting-paid.md "Crypto deposits"): the test chain
 * (litesvm behind Solana's JSON-RPC, tools/solana-test-chain) with a USDC-like mint, configured as
 * the service's live network. As an integrator with the live key, it reads the business's deposit
 * address (`GET /claim/v1/funding/crypto`), a payer sends USDC there, and it shows the deposit
 * `received` (confirmed), then `credited` after finality with the balance up by the amount; then a
 * second transfer is dropped before finality (a fork that lost) and ends `dropped`, never credited.
 */
import { randomBytes } from 'node:crypto';
import { createPayerWithMint, sendToken, startChainRpc, TestChain } from '../solana-test-chain';

/** What demo-live.ts calls to talk to the service: method, path, key, body -> JSON (throws on >= 300). */
export type DemoCall = (method: string, path: string, key: string, body?: unknown) => Promise<any>;

/** The chain and its settings for the service; `part` runs the demo, `close` stops the chain. */
export interface SolanaDemo {
  env: Record<string, string>;
  part(call: DemoCall, live: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts the test chain (slots every 250 ms, finalized 8 slots later) and a payer with 1,000,000 USDC. */
export async function startSolanaDemo(): Promise<SolanaDemo> {
  const chain = new TestChain({ finalityDepth: 8 });
  const rpc = await startChainRpc(chain);
  const usdc = await createPayerWithMint(chain, 1_000_000_000_000n);
  chain.advance(10);
  let ticking = true;
  const ticker = setInterval(() => ticking && chain.advance(1), 250);
  ticker.unref();
  const env = {
    SOLANA_RPC_URL: rpc.url,
    SOLANA_USDC_MINT: usdc.mint,
    SOLANA_DEPOSIT_SEED: randomBytes(32).toString('hex'),
    SOLANA_MINIMUM_DEPOSIT: '1.00',
    SOLANA_POLL_INTERVAL: 'PT0.5S',
  };

  async function until<T>(fn: () => Promise<T | null | undefined>, timeoutMs: number): Promise<T | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await fn().catch(() => null);
      if (v) return v;
      if (Date.now() > deadline) return null;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async function part(call: DemoCall, live: string): Promise<void> {
    console.log(`\nSolana test chain (litesvm) at ${rpc.url}, USDC mint ${usdc.mint}`);
    const funding = await call('GET', '/claim/v1/funding/crypto', live);
    console.log(`deposit address ${funding.walletAddress} (token account ${funding.tokenAccount}), minimum ${funding.minimumDeposit} USDC`);
    // The crypto deposit of `amount` (Surface B's deposit list, as the integrator sees it).
    const deposit = async (amount: string) => {
      const list = await call('GET', '/claim/v1/funding/deposits?limit=100', live);
      return list.data.find((d: any) => d.source === 'crypto' && d.amount === amount) as any;
    };
    const before = (await call('GET', '/v1/balance', live)).available;

    const sig = await sendToken(chain, usdc, funding.walletAddress, 42_500_000n, { memo: 'demo top-up' });
    console.log(`payer sent 42.50 USDC: ${sig}`);
    const received = await until(async () => {
      const d = await deposit('42.50');
      return d?.status === 'received' ? d : null;
    }, 30_000);
    const credited = await until(async () => {
      const d = await deposit('42.50');
      return d?.status === 'credited' ? d : null;
    }, 60_000);
    const after = (await call('GET', '/v1/balance', live)).available;
    console.log(`deposit ${credited?.id ?? received?.id ?? '-'}: ${received ? 'received (confirmed)' : 'received (not seen before finality)'}, then ${credited ? `credited ${credited.creditedAmountUsd} (finalized)` : 'NOT credited'}; balance ${before} -> ${after} USDC`);
    if (!credited) throw new Error('the finalized USDC transfer was not credited');

    ticking = false;
    const dropped = await sendToken(chain, usdc, funding.walletAddress, 9_990_000n);
    chain.advance(1);
    console.log(`payer sent 9.99 USDC: ${dropped} (confirmed, finality paused)`);
    const seen = await until(() => deposit('9.99'), 30_000);
    console.log(`deposit ${seen?.id ?? '-'}: ${seen?.status ?? 'not seen'}`);
    chain.drop(dropped);
    console.log('the transaction is dropped before finality (its fork lost)');
    ticking = true;
    const gone = await until(async () => {
      const d = await deposit('9.99');
      return d?.status === 'dropped' ? d : null;
    }, 60_000);
    const final = (await call('GET', '/v1/balance', live)).available;
    console.log(`deposit ${gone?.id ?? seen?.id ?? '-'}: ${gone ? 'dropped, never credited' : `still ${seen?.status ?? 'unseen'}`}; balance ${final} USDC`);
    if (!gone || final !== after) throw new Error('the dropped transfer was not marked dropped, or the balance moved');
  }

  return {
    env,
    part,
    async close() {
      clearInterval(ticker);
      chain.close();
      await rpc.close();
    },
  };
}
