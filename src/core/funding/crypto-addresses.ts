/**
 * Crypto deposit addresses (docs/getting-paid.md "Crypto deposits"), one per business, environment
 * and network; the only writer of `crypto_deposit_addresses`. Derived, stored on first use, stable.
 */
import type { Selectable } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import type { CryptoDepositAddressesTable } from '../../db/tables/solana';
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { deriveDepositAddress, DEPOSIT_KEY_DERIVATION } from '../../solana/keys';
import { type SolanaNetwork, solanaNetworkFor } from '../../solana/network';
import type { Caller, Core } from '../context';

export type CryptoDepositAddressRow = Selectable<CryptoDepositAddressesTable>;

/** A business's USDC deposit address (core form; `minimumDeposit` in micro-USDC). */
export interface CryptoDepositAddress {
  network: string;
  asset: 'USDC';
  address: string;
  tokenAccount: string;
  mint: string;
  minimumDeposit: bigint;
  /** False: a sandbox address without a configured node. */
  watched: boolean;
}

export function cryptoChannelUnavailable(): ApiError {
  return new ApiError(400, 'channel_unavailable', 'Crypto funding is not available in live: no watched USDC deposit address is configured; use a funding account', null);
}

/** The address row, created on first use (concurrent first calls get the same row). */
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

/** The caller's USDC deposit address; 400 channel_unavailable when its environment has no Solana network. */
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

export function cryptoDepositsWatched(config: Core['config'], environment: string): boolean {
  return !!solanaNetworkFor(config, environment)?.rpcUrl;
}

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
