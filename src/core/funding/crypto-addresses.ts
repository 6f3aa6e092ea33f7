/**
 * Crypto deposit addresses (docs/getting-paid.md "Crypto deposits"): one per business, environment
 * and network, for the network's USDC mint; the only writer of `crypto_deposit_addresses`. The
 * address is derived (src/solana/keys.ts: the business's deposit key under the configured master
 * seed, and that key's associated token account), stored on first use, and stable afterwards: a
 * stored row is always returned as it is.
 */
import type { Selectable } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import type { CryptoDepositAddressesTable } from '../../db/tables/solana';
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { deriveDepositAddress, DEPOSIT_KEY_DERIVATION } from '../../solana/keys';
import { type SolanaNetwork, solanaNetworkFor } from '../../solana/network';
import type { Caller, Core } from '../context';

/** A stored deposit address row. */
export type CryptoDepositAddressRow = Selectable<CryptoDepositAddressesTable>;

/** A business's USDC deposit address (core form; `minimumDeposit` in micro-USDC). */
export interface CryptoDepositAddress {
  network: string;
  asset: 'USDC';
  /** base58 owner address payers send USDC to. */
  address: string;
  /** base58 token account the USDC lands in. */
  tokenAccount: string;
  mint: string;
  minimumDeposit: bigint;
  /** Whether a watcher credits deposits to it (false: a sandbox address without a configured node). */
  watched: boolean;
}

/** The 400 channel_unavailable of an environment without crypto funding (live without its settings). */
export function cryptoChannelUnavailable(): ApiError {
  return new ApiError(400, 'channel_unavailable', 'Crypto funding is not available in live: no watched USDC deposit address is configured; use a funding account', null);
}

/**
 * The deposit address row of (business, environment) on `net`, created on first use (insert, on
 * conflict read back: concurrent first calls get the same row).
 */
export async function ensureDepositAddressRow(db: DbOrTx, businessId: string, net: SolanaNetwork): Promise<CryptoDepositAddressRow> {
  const find = () =>
    db
      .selectFrom('crypto_deposit_addresses')
      .selectAll()
      .where('business_id', '=', businessId)
      .where('environment', '=', net.environment)
      .where('network', '=', net.network)
      .where('mint', '=', net.mint);
  const existing = await find().executeTakeFirst();
  if (existing) return existing;
  const derived = await deriveDepositAddress(net.seedHex, businessId, net.environment, net.mint);
  await db
    .insertInto('crypto_deposit_addresses')
    .values({
      id: newId('cda'),
      business_id: businessId,
      environment: net.environment,
      network: net.network,
      owner_address: derived.owner,
      token_account: derived.tokenAccount,
      mint: net.mint,
      derivation: DEPOSIT_KEY_DERIVATION,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
  return find().executeTakeFirstOrThrow();
}

/**
 * GET /funding/crypto (Surface B) and the crypto method of payment links: the caller's USDC deposit
 * address. Throws 400 channel_unavailable when the caller's environment has no Solana network
 * configured (live without SOLANA_RPC_URL, SOLANA_USDC_MINT and SOLANA_DEPOSIT_SEED).
 */
export async function getCryptoDepositAddress(core: Core, caller: Pick<Caller, 'businessId' | 'environment'>): Promise<CryptoDepositAddress> {
  const net = solanaNetworkFor(core.config, caller.environment);
  if (!net) throw cryptoChannelUnavailable();
  const row = await ensureDepositAddressRow(core.db, caller.businessId, net);
  return {
    network: net.network,
    asset: 'USDC',
    address: row.owner_address,
    tokenAccount: row.token_account,
    mint: row.mint,
    minimumDeposit: net.minimumDeposit,
    watched: !!net.rpcUrl,
  };
}

/** Whether deposits to `environment`'s addresses are watched (a crypto payment link method is ready). */
export function cryptoDepositsWatched(config: Core['config'], environment: string): boolean {
  return !!solanaNetworkFor(config, environment)?.rpcUrl;
}

/** Every deposit address of `net` (the watcher's list), oldest first. */
export async function listDepositAddresses(core: Core, net: SolanaNetwork): Promise<CryptoDepositAddressRow[]> {
  return core.db
    .selectFrom('crypto_deposit_addresses')
    .selectAll()
    .where('environment', '=', net.environment)
    .where('network', '=', net.network)
    .where('mint', '=', net.mint)
    .orderBy('id')
    .execute();
}
