/**
 * The Solana deposit watcher's step (docs/getting-paid.md "Crypto deposits"): the only writer of
 * `crypto_transfers`, `crypto_watch_cursors` and `solana_watchers`. One poll records each new
 * (signature, token account) once at `confirmed` (an incoming USDC transfer becomes a `received`
 * deposit), then credits each at `finalized` or drops it (a dropped fork, a failed transaction).
 * Exactly once with any number of watchers: the deposit is unique per external id, the transfer
 * row per (signature, token account), the credit start a guarded UPDATE.
 */
import { formatAmount, USDC } from '../../domain/money';
import { readIncomingTransfer, readMemo, type RpcTransaction } from '../../domain/solana';
import { ApiError } from '../../domain/errors';
import { type SignatureInfo, type SolanaRpc, solanaRpc } from '../../solana/rpc';
import { type SolanaNetwork, solanaNetworkFor } from '../../solana/network';
import type { Caller, Core } from '../context';
import { type CryptoDepositAddressRow, listDepositAddresses } from './crypto-addresses';
import { dropDeposit, receiveDeposit, recordDepositCreditStart, startDepositCredit } from './deposits';

/** Transfers settled (credited or dropped) per poll at most; `more` says when some were left. */
export const SETTLE_BATCH = 200;

export interface SolanaPollResult {
  environment: string;
  addresses: number;
  recorded: number;
  credited: number;
  dropped: number;
  pending: number;
  /** Slots as decimal strings (workflow payloads carry no bigint). */
  reachedSlot: string;
  headSlot: string;
  finalizedSlot: string;
  /** More pending transfers than one poll settles: poll again at once. */
  more: boolean;
}

export const cryptoExternalId = (signature: string, tokenAccount: string) => `${signature}:${tokenAccount}`;

function watcherCaller(a: CryptoDepositAddressRow): Caller {
  return { businessId: a.business_id, environment: a.environment as Caller['environment'], keyId: 'solana-watcher', role: 'owner', policy: null };
}

async function insertTransfer(
  core: Core,
  a: CryptoDepositAddressRow,
  sig: string,
  slot: bigint,
  status: 'received' | 'below_minimum' | 'ignored',
  amount: bigint,
  depositId: string | null,
): Promise<void> {
  await core.db
    .insertInto('crypto_transfers')
    .values({
      signature: sig,
      token_account: a.token_account,
      business_id: a.business_id,
      environment: a.environment,
      network: a.network,
      mint: a.mint,
      amount,
      slot,
      status,
      deposit_id: depositId,
    })
    .onConflict((oc) => oc.columns(['signature', 'token_account']).doNothing())
    .execute();
}

/** Records one signature of `a`; false when its transaction is not readable yet. */
async function recordSignature(core: Core, net: SolanaNetwork, rpc: SolanaRpc, a: CryptoDepositAddressRow, s: SignatureInfo): Promise<boolean> {
  const known = await core.db
    .selectFrom('crypto_transfers')
    .select(['status', 'deposit_id'])
    .where('signature', '=', s.signature)
    .where('token_account', '=', a.token_account)
    .executeTakeFirst();
  // A transfer recorded without its deposit (the process died between the two) is completed here.
  if (known && !((known.status === 'received' || known.status === 'below_minimum') && known.deposit_id === null)) return true;
  if (s.err !== null && s.err !== undefined) {
    await insertTransfer(core, a, s.signature, s.slot, 'ignored', 0n, null);
    return true;
  }
  const tx = await rpc.getTransaction(s.signature, 'confirmed');
  if (!tx) return false;
  const reading = readIncomingTransfer(tx, a.token_account, net.mint);
  if (reading.kind === 'ignored') {
    await insertTransfer(core, a, s.signature, BigInt(tx.slot), 'ignored', 0n, null);
    return true;
  }
  const below = reading.amount < net.minimumDeposit;
  // The transfer is recorded before its deposit, so a deposit always has a transfer row that
  // settlePending resolves, even when the transaction vanishes before the deposit is linked.
  await insertTransfer(core, a, s.signature, BigInt(tx.slot), below ? 'below_minimum' : 'received', reading.amount, null);
  let depositId: string;
  try {
    const { deposit } = await receiveDeposit(core, watcherCaller(a), {
      source: 'crypto',
      amount: formatAmount(reading.amount, USDC),
      currency: USDC,
      reference: readMemo(tx as RpcTransaction),
      externalId: cryptoExternalId(s.signature, a.token_account),
      creditOnReceipt: false,
    });
    depositId = deposit.id;
  } catch (err) {
    // Above the largest deposit (receiveDeposit's bound): kept for an operator, never credited automatically.
    if (!(err instanceof ApiError)) throw err;
    core.log.error({ signature: s.signature, tokenAccount: a.token_account, amount: reading.amount.toString(), error: err.message }, 'on-chain deposit refused by the deposit core; left for an operator');
    await core.db
      .updateTable('crypto_transfers')
      .set({ status: 'ignored' })
      .where('signature', '=', s.signature)
      .where('token_account', '=', a.token_account)
      .where('deposit_id', 'is', null)
      .where('status', 'in', ['received', 'below_minimum'])
      .execute();
    return true;
  }
  const linked = await core.db
    .updateTable('crypto_transfers')
    .set({ deposit_id: depositId })
    .where('signature', '=', s.signature)
    .where('token_account', '=', a.token_account)
    .where('deposit_id', 'is', null)
    .returning('status')
    .executeTakeFirst();
  // Another poll found the transaction gone before the deposit existed: the deposit goes with it.
  if (linked?.status === 'dropped') await core.db.transaction().execute((tx) => dropDeposit(tx, depositId));
  return true;
}

/** The id of the crypto deposit recorded for `externalId`, or null. */
async function findCryptoDepositId(core: Core, businessId: string, environment: Caller['environment'], externalId: string): Promise<string | null> {
  const row = await core.db
    .selectFrom('deposits')
    .select('id')
    .where('business_id', '=', businessId)
    .where('environment', '=', environment)
    .where('source', '=', 'crypto')
    .where('external_id', '=', externalId)
    .executeTakeFirst();
  return row?.id ?? null;
}

/** Step 1 for one token account; returns how many signatures were new. */
async function scanAddress(core: Core, net: SolanaNetwork, rpc: SolanaRpc, a: CryptoDepositAddressRow, heartbeat: () => void): Promise<number> {
  const cursor = await core.db.selectFrom('crypto_watch_cursors').select('last_signature').where('token_account', '=', a.token_account).executeTakeFirst();
  const sigs = await rpc.getSignaturesSince(a.token_account, cursor?.last_signature ?? null);
  let complete = true;
  let recorded = 0;
  for (const s of [...sigs].reverse()) {
    if (await recordSignature(core, net, rpc, a, s)) recorded++;
    else complete = false;
    heartbeat();
  }
  // The cursor moves only when every signature is recorded, to the highest-slot finalized one: a
  // finalized signature never disappears, so `until` stays valid.
  let newCursor: string | null = null;
  let best = -1n;
  for (const s of sigs) {
    if (s.confirmationStatus === 'finalized' && BigInt(s.slot) > best) {
      best = BigInt(s.slot);
      newCursor = s.signature;
    }
  }
  if (complete && newCursor) {
    await core.db
      .insertInto('crypto_watch_cursors')
      .values({ token_account: a.token_account, last_signature: newCursor })
      .onConflict((oc) => oc.column('token_account').doUpdateSet({ last_signature: newCursor, updated_at: core.now() }))
      .execute();
  }
  return recorded;
}

async function settlePending(core: Core, net: SolanaNetwork, rpc: SolanaRpc, finalizedSlot: bigint, heartbeat: () => void): Promise<{ credited: number; dropped: number; more: boolean }> {
  const rows = await core.db
    .selectFrom('crypto_transfers')
    .selectAll()
    .where('environment', '=', net.environment)
    .where('network', '=', net.network)
    .where('status', '=', 'received')
    .orderBy('slot')
    .limit(SETTLE_BATCH + 1)
    .execute();
  let credited = 0;
  let dropped = 0;
  for (const r of rows.slice(0, SETTLE_BATCH)) {
    heartbeat();
    const fin = await rpc.getTransaction(r.signature, 'finalized');
    let outcome: 'credit' | 'drop' | 'wait' = 'wait';
    if (fin) {
      const reading = readIncomingTransfer(fin, r.token_account, r.mint);
      outcome = reading.kind === 'incoming' && reading.amount === BigInt(r.amount) ? 'credit' : 'drop';
    } else if (BigInt(r.slot) <= finalizedSlot && !(await rpc.getTransaction(r.signature, 'confirmed'))) {
      outcome = 'drop';
    }
    if (outcome === 'wait') continue;
    // Not linked yet (the process died between recording the transfer and linking its deposit):
    // the deposit, if it was made, is found by its external id.
    const depositId = r.deposit_id ?? (await findCryptoDepositId(core, r.business_id, r.environment as Caller['environment'], cryptoExternalId(r.signature, r.token_account)));
    // A credit waits for its deposit: the next scan makes and links it.
    if (outcome === 'credit' && !depositId) continue;
    const moved = await core.db.transaction().execute(async (tx) => {
      const row = await tx
        .updateTable('crypto_transfers')
        .set({ status: outcome === 'credit' ? 'credited' : 'dropped', settled_at: core.now(), deposit_id: depositId })
        .where('signature', '=', r.signature)
        .where('token_account', '=', r.token_account)
        .where('status', '=', 'received')
        .returning('deposit_id')
        .executeTakeFirst();
      if (!row?.deposit_id) return false;
      if (outcome === 'credit') return recordDepositCreditStart(tx, row.deposit_id);
      return dropDeposit(tx, row.deposit_id);
    });
    if (moved && outcome === 'credit' && depositId) {
      credited++;
      await startDepositCredit(core, depositId);
    } else if (moved) dropped++;
  }
  // Credits whose start this process recorded but could not make are made by the relay.
  return { credited, dropped, more: rows.length > SETTLE_BATCH };
}

/**
 * One poll of the watcher of `environment`; null when it has no watched network. Throws what the
 * RPC throws (every step is idempotent).
 */
export async function pollSolanaDeposits(core: Core, environment: string, opts: { rpc?: SolanaRpc; heartbeat?: () => void } = {}): Promise<SolanaPollResult | null> {
  const net = solanaNetworkFor(core.config, environment);
  if (!net?.rpcUrl) return null;
  const rpc = opts.rpc ?? solanaRpc(net.rpcUrl);
  const heartbeat = opts.heartbeat ?? (() => undefined);
  heartbeat();
  const reached = await rpc.getSlot('confirmed');
  const addresses = await listDepositAddresses(core, net);
  let recorded = 0;
  for (const a of addresses) {
    recorded += await scanAddress(core, net, rpc, a, heartbeat);
    heartbeat();
  }
  const finalizedSlot = await rpc.getSlot('finalized');
  const settled = await settlePending(core, net, rpc, finalizedSlot, heartbeat);
  const head = await rpc.getSlot('confirmed');
  const pending = await core.db
    .selectFrom('crypto_transfers')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('environment', '=', net.environment)
    .where('network', '=', net.network)
    .where('status', '=', 'received')
    .executeTakeFirstOrThrow();
  const now = core.now();
  await core.db
    .insertInto('solana_watchers')
    .values({ environment: net.environment, network: net.network, head_slot: head, reached_slot: reached, finalized_slot: finalizedSlot, polled_at: now })
    .onConflict((oc) => oc.column('environment').doUpdateSet({ network: net.network, head_slot: head, reached_slot: reached, finalized_slot: finalizedSlot, polled_at: now }))
    .execute();
  return {
    environment,
    addresses: addresses.length,
    recorded,
    credited: settled.credited,
    dropped: settled.dropped,
    pending: Number(pending.n),
    reachedSlot: reached.toString(),
    headSlot: head.toString(),
    finalizedSlot: finalizedSlot.toString(),
    more: settled.more,
  };
}

/** Records the sweeps' fee payer balance for the metrics (solana_watchers; called by the sweeps, src/core/funding/crypto-sweeps.ts). */
export async function recordFeePayerBalance(core: Core, net: SolanaNetwork, lamports: bigint): Promise<void> {
  const now = core.now();
  await core.db
    .insertInto('solana_watchers')
    .values({ environment: net.environment, network: net.network, head_slot: 0n, reached_slot: 0n, finalized_slot: 0n, polled_at: new Date(0), fee_payer_lamports: lamports, fee_payer_checked_at: now })
    .onConflict((oc) => oc.column('environment').doUpdateSet({ fee_payer_lamports: lamports, fee_payer_checked_at: now }))
    .execute();
}

export async function listCryptoTransfers(core: Core, tokenAccount: string) {
  return core.db.selectFrom('crypto_transfers').selectAll().where('token_account', '=', tokenAccount).orderBy('slot').execute();
}
