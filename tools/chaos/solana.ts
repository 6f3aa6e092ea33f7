/**
 * The Solana part of the chaos run (docs/chaos.md; docs/getting-paid.md "Crypto deposits"): the
 * test chain (litesvm behind Solana's JSON-RPC) is the stack's live network. During the traffic a
 * payer sends USDC to the chaos business's live deposit address; some transfers are dropped before
 * finality. The RPC fails (HTTP 503), answers late (up to 3 s) and answers getSignaturesForAddress in
 * another order, in windows; the watcher dies with the workers the main loop SIGKILLs. After the
 * traffic the chain finalizes everything, and the audit checks that each finalized transfer was
 * credited exactly once (one deposit, one posting of its amount), that no dropped transfer was, and
 * that no other crypto deposit exists.
 */
import type { Db } from '../../src/db/schema';
import { type ChainRpcServer, createPayerWithMint, sendToken, startChainRpc, TestChain, type TestPayer } from '../solana-test-chain';
import type { Check } from './audit';
import type { ChaosClient } from './client';
import type { Rng } from './rng';

/** One transfer the payer sent. */
interface Sent {
  signature: string;
  amount: bigint;
  dropped: boolean;
}

/** The chain, its settings for the stack, the traffic loop, quiescence and the audit. */
export interface SolanaChaos {
  env: Record<string, string>;
  /** Reads the business's live deposit address (GET /claim/v1/funding/crypto with the live key). */
  setup(liveB: ChaosClient): Promise<void>;
  /** Sends transfers until `until` (epoch ms), dropping some before finality; RPC faults in windows. */
  loop(until: number): Promise<void>;
  /** Stops the faults; true once every finalized transfer is credited and nothing waits for finality in the database. */
  settled(db: Db): Promise<boolean>;
  /** {@link settled} polled every second for at most `timeoutMs`. */
  waitSettled(db: Db, timeoutMs: number): Promise<boolean>;
  audit(db: Db): Promise<Check[]>;
  /** One line for the traffic table. */
  summary(): [string, string];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The next transfer's amount in base units (1.00-500.99 USDC), never one in `used` (which it joins).
 * The test chain keeps one blockhash, so two transfers of the same amount are the same transaction,
 * one signature: a later one would revive a dropped one and the audit would count it twice.
 */
export function nextTransferAmount(rng: Rng, used: Set<bigint>): bigint {
  for (;;) {
    const amount = BigInt(rng.int(1, 500)) * 1_000_000n + BigInt(rng.int(0, 99)) * 10_000n;
    if (used.has(amount)) continue;
    used.add(amount);
    return amount;
  }
}

/** Starts the chain and its RPC with the faults of `rng`. */
export async function startSolanaChaos(rng: Rng): Promise<SolanaChaos> {
  const chain = new TestChain({ finalityDepth: 8 });
  let faulty = false;
  let stats = { failed: 0, late: 0, reordered: 0 };
  const server: ChainRpcServer = await startChainRpc(chain, {
    intercept: async () => {
      if (!faulty) return undefined;
      if (rng.chance(0.15)) {
        stats.failed++;
        return { status: 503 };
      }
      if (rng.chance(0.15)) {
        stats.late++;
        await sleep(rng.int(200, 3000));
      }
      return undefined;
    },
    transform: (method, result) => {
      if (faulty && method === 'getSignaturesForAddress' && Array.isArray(result) && result.length > 1 && rng.chance(0.3)) {
        stats.reordered++;
        return [...result].sort(() => (rng.chance(0.5) ? 1 : -1));
      }
      return result;
    },
  });
  const usdc: TestPayer = await createPayerWithMint(chain, 10n ** 15n);
  chain.advance(10);
  let ticking = true;
  const ticker = setInterval(() => ticking && chain.advance(1), 300);
  ticker.unref();
  const sent: Sent[] = [];
  const amounts = new Set<bigint>();
  let address = '';
  let tokenAccount = '';

  const self: SolanaChaos = {
    env: {
      SOLANA_RPC_URL: server.url,
      SOLANA_USDC_MINT: usdc.mint,
      SOLANA_DEPOSIT_SEED: '6a'.repeat(32),
      SOLANA_MINIMUM_DEPOSIT: '1.00',
      SOLANA_POLL_INTERVAL: 'PT0.5S',
    },
    async setup(liveB) {
      for (let i = 0; i < 20; i++) {
        const r = await liveB.send('GET', '/funding/crypto');
        if (r.status === 200) {
          address = r.body.walletAddress;
          tokenAccount = r.body.tokenAccount;
          return;
        }
        await sleep(1000);
      }
      throw new Error('GET /claim/v1/funding/crypto did not answer 200 with the live key');
    },
    async loop(until) {
      if (!address) return;
      while (Date.now() < until) {
        faulty = rng.chance(0.5);
        const amount = nextTransferAmount(rng, amounts);
        const drop = rng.chance(0.2);
        if (drop) ticking = false;
        const signature = await sendToken(chain, usdc, address, amount);
        const s: Sent = { signature, amount, dropped: false };
        sent.push(s);
        if (drop) {
          chain.advance(1);
          // seen at confirmed (or not), then gone before finality
          await sleep(rng.int(100, 1500));
          try {
            chain.drop(signature);
            s.dropped = true;
          } catch (e) {
            // Finalized meanwhile (a slow machine): it stays, and the audit expects it credited.
            if (!/is finalized/.test((e as Error).message)) throw e;
          }
          ticking = true;
        }
        await sleep(rng.int(200, 1200));
      }
      faulty = false;
    },
    async settled(db) {
      faulty = false;
      ticking = true;
      const rows = await db.selectFrom('crypto_transfers').select(['signature', 'status']).where('token_account', '=', tokenAccount).execute();
      const status = new Map(rows.map((r) => [r.signature, r.status]));
      if (rows.some((r) => r.status === 'received')) return false;
      return sent.every((s) => (s.dropped ? status.get(s.signature) !== 'received' : status.get(s.signature) === 'credited'));
    },
    async waitSettled(db, timeoutMs) {
      const end = Date.now() + timeoutMs;
      while (Date.now() < end) {
        if (await self.settled(db).catch(() => false)) return true;
        await sleep(1000);
      }
      return false;
    },
    async audit(db) {
      const checks: Check[] = [];
      const deposits = await db.selectFrom('deposits').select(['id', 'external_id', 'status', 'amount']).where('source', '=', 'crypto').execute();
      const byExt = new Map<string, typeof deposits>();
      for (const d of deposits) byExt.set(d.external_id, [...(byExt.get(d.external_id) ?? []), d]);
      const postings = await db.selectFrom('ledger_postings').select(['key', 'amount']).where('key', 'like', 'deposit:%:credit').execute();
      const postingsOf = new Map<string, bigint[]>();
      for (const p of postings) {
        const id = p.key.split(':')[1]!;
        postingsOf.set(id, [...(postingsOf.get(id) ?? []), BigInt(p.amount)]);
      }
      const finalized = sent.filter((s) => !s.dropped);
      const wrongFinal = finalized.filter((s) => {
        const ds = byExt.get(`${s.signature}:${tokenAccount}`) ?? [];
        const p = ds.length === 1 ? (postingsOf.get(ds[0]!.id) ?? []) : [];
        return ds.length !== 1 || ds[0]!.status !== 'credited' || p.length !== 1 || p[0] !== s.amount;
      });
      const wrongDropped = sent
        .filter((s) => s.dropped)
        .filter((s) => (byExt.get(`${s.signature}:${tokenAccount}`) ?? []).some((d) => d.status !== 'dropped' || (postingsOf.get(d.id) ?? []).length > 0));
      const known = new Set(sent.map((s) => `${s.signature}:${tokenAccount}`));
      const strangers = deposits.filter((d) => !known.has(d.external_id));
      checks.push({
        name: 'solana: each finalized USDC transfer credited exactly once; none dropped before finality credited; nothing else',
        ok: wrongFinal.length === 0 && wrongDropped.length === 0 && strangers.length === 0 && finalized.length > 0,
        detail:
          `${sent.length} transfers (${finalized.length} finalized, ${sent.length - finalized.length} dropped before finality), ${deposits.length} crypto deposits; ` +
          `${wrongFinal.length} finalized not credited exactly once [${wrongFinal.slice(0, 2).map((s) => s.signature.slice(0, 12)).join(', ')}], ` +
          `${wrongDropped.length} dropped but credited, ${strangers.length} other crypto deposits`,
      });
      return checks;
    },
    summary() {
      return [
        'solana: USDC transfers (dropped before finality); RPC answers failed / late / reordered',
        `${sent.length} (${sent.filter((s) => s.dropped).length}); ${stats.failed} / ${stats.late} / ${stats.reordered}`,
      ];
    },
    async close() {
      clearInterval(ticker);
      chain.close();
      await server.close();
      stats = { failed: 0, late: 0, reordered: 0 };
    },
  };
  return self;
}
