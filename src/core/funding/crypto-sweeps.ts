/**
 * Sweeps credited USDC from deposit token accounts to the treasury (docs/getting-paid.md "Sweeps");
 * the only writer of `crypto_sweeps`. Never more than credited (capped by the on-chain balance); at
 * most one sweep in flight per token account (unique partial index); recorded before sent, and a
 * restart re-sends the same signed transaction (same signature: lands once) until it expires.
 */
import { sql } from 'kysely';
import { newId } from '../../domain/ids';
import { depositSigner, signerFromHexSeed } from '../../solana/keys';
import { type SolanaNetwork, solanaNetworkFor } from '../../solana/network';
import { type SolanaRpc, solanaRpc } from '../../solana/rpc';
import { signedTokenTransfer } from '../../solana/transfers';
import type { Core } from '../context';
import { listDepositAddresses } from './crypto-addresses';
import { recordFeePayerBalance } from './crypto-watch';

export interface SolanaSweepResult {
  environment: string;
  sent: number;
  confirmed: number;
  failed: number;
  amountSent: string;
  feePayerLamports: string;
  feePayerLow: boolean;
}

const MIN_FEE_LAMPORTS = 10_000n;

async function settleInFlight(core: Core, net: SolanaNetwork, rpc: SolanaRpc): Promise<{ confirmed: number; failed: number }> {
  const rows = await core.db.selectFrom('crypto_sweeps').selectAll().where('environment', '=', net.environment).where('status', '=', 'sent').orderBy('id').execute();
  let confirmed = 0;
  let failed = 0;
  for (const r of rows) {
    const fin = await rpc.getTransaction(r.signature, 'finalized');
    let status: 'confirmed' | 'failed' | null = null;
    if (fin) status = fin.meta && fin.meta.err === null ? 'confirmed' : 'failed';
    else if ((await rpc.getBlockHeight()) > BigInt(r.last_valid_block_height) && !(await rpc.getTransaction(r.signature, 'confirmed'))) status = 'failed';
    if (status) {
      const moved = await core.db
        .updateTable('crypto_sweeps')
        .set({ status, settled_at: core.now() })
        .where('id', '=', r.id)
        .where('status', '=', 'sent')
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) > 0) {
        if (status === 'confirmed') confirmed++;
        else failed++;
      }
      continue;
    }
    // Not final yet: send the same transaction again (same signature; lands at most once).
    await rpc.sendTransaction(r.transaction).catch((err: Error) => core.log.warn({ sweepId: r.id, err: err.message }, 'sweep resend refused'));
  }
  return { confirmed, failed };
}

async function sweepable(core: Core, net: SolanaNetwork): Promise<Map<string, bigint>> {
  const rows = await sql<{ token_account: string; credited: string; swept: string }>`
    select a.token_account,
      coalesce((select sum(t.amount) from crypto_transfers t where t.token_account = a.token_account and t.status = 'credited'), 0)::text as credited,
      coalesce((select sum(s.amount) from crypto_sweeps s where s.token_account = a.token_account and s.status in ('sent', 'confirmed')), 0)::text as swept
    from crypto_deposit_addresses a
    where a.environment = ${net.environment} and a.network = ${net.network} and a.mint = ${net.mint}`.execute(core.db);
  return new Map(rows.rows.map((r) => [r.token_account, BigInt(r.credited) - BigInt(r.swept)]));
}

/** One sweep pass of `environment`; null without a treasury and fee payer. Throws what the RPC throws. */
export async function sweepSolanaDeposits(core: Core, environment: string, opts: { rpc?: SolanaRpc } = {}): Promise<SolanaSweepResult | null> {
  const net = solanaNetworkFor(core.config, environment);
  if (!net?.rpcUrl || !net.sweep) return null;
  const rpc = opts.rpc ?? solanaRpc(net.rpcUrl);
  const feePayer = await signerFromHexSeed(net.sweep.feePayerSeedHex);
  const lamportsLeft = await rpc.getBalance(feePayer.address);
  await recordFeePayerBalance(core, net, lamportsLeft);
  const feePayerLow = lamportsLeft < net.sweep.feePayerMinLamports;
  if (feePayerLow) core.log.warn({ environment, feePayer: feePayer.address, lamports: lamportsLeft.toString() }, 'solana sweep fee payer is low');
  const settled = await settleInFlight(core, net, rpc);
  let sent = 0;
  let amountSent = 0n;
  if (lamportsLeft >= MIN_FEE_LAMPORTS) {
    const due = await sweepable(core, net);
    for (const a of await listDepositAddresses(core, net)) {
      const credit = due.get(a.token_account) ?? 0n;
      if (credit <= 0n) continue;
      const onChain = (await rpc.getTokenAccountAmount(a.token_account)) ?? 0n;
      const amount = credit < onChain ? credit : onChain;
      if (amount <= 0n) continue;
      const authority = await depositSigner(net.seedHex, a.business_id, a.environment);
      const { blockhash, lastValidBlockHeight } = await rpc.getLatestBlockhash();
      const { signature, wire } = await signedTokenTransfer({
        feePayer,
        authority,
        source: a.token_account,
        destination: net.sweep.treasuryTokenAccount,
        mint: net.mint,
        amount,
        blockhash,
        lastValidBlockHeight,
      });
      const id = newId('csw');
      const inserted = await core.db
        .insertInto('crypto_sweeps')
        .values({
          id,
          business_id: a.business_id,
          environment: a.environment,
          token_account: a.token_account,
          treasury_token_account: net.sweep.treasuryTokenAccount,
          amount,
          signature,
          transaction: wire,
          last_valid_block_height: lastValidBlockHeight,
          status: 'sent',
        })
        .onConflict((oc) => oc.column('token_account').where('status', '=', 'sent').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) continue; // another sweeper has one in flight
      try {
        await rpc.sendTransaction(wire);
        sent++;
        amountSent += amount;
      } catch (err) {
        // Refused at preflight: nothing moved; the row fails now so the amount can be swept again.
        core.log.warn({ sweepId: id, err: (err as Error).message }, 'sweep refused by the node');
        await core.db.updateTable('crypto_sweeps').set({ status: 'failed', settled_at: core.now() }).where('id', '=', id).where('status', '=', 'sent').execute();
      }
    }
  }
  return { environment, sent, confirmed: settled.confirmed, failed: settled.failed, amountSent: amountSent.toString(), feePayerLamports: lamportsLeft.toString(), feePayerLow };
}
