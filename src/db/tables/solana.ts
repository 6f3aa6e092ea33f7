import type { Generated } from 'kysely';

/** USDC on Solana (docs/getting-paid.md "Crypto deposits"). Amounts are micro-USDC. */

/** A business's deposit address. No key material. */
export interface CryptoDepositAddressesTable {
  id: string;
  business_id: string;
  environment: string;
  network: string;
  /** base58 public key (shown to payers). */
  owner_address: string;
  /** base58 associated token account of the owner for `mint`. */
  token_account: string;
  mint: string;
  derivation: string;
  created_at: Generated<Date>;
}

/** One transaction seen touching a deposit token account: `received` | `credited` | `below_minimum` | `dropped` | `ignored`. */
export interface CryptoTransfersTable {
  signature: string;
  token_account: string;
  business_id: string;
  environment: string;
  network: string;
  mint: string;
  /** Micro-USDC (0 when ignored). */
  amount: bigint;
  slot: bigint;
  status: 'received' | 'credited' | 'below_minimum' | 'dropped' | 'ignored';
  deposit_id: string | null;
  seen_at: Generated<Date>;
  settled_at: Date | null;
}

export interface CryptoWatchCursorsTable {
  token_account: string;
  last_signature: string;
  updated_at: Generated<Date>;
}

export interface SolanaWatchersTable {
  environment: string;
  network: string;
  head_slot: bigint;
  reached_slot: bigint;
  finalized_slot: bigint;
  polled_at: Date;
  fee_payer_lamports: bigint | null;
  fee_payer_checked_at: Date | null;
}

/** A move of credited USDC to the treasury. */
export interface CryptoSweepsTable {
  id: string;
  business_id: string;
  environment: string;
  token_account: string;
  treasury_token_account: string;
  amount: bigint;
  signature: string;
  /** The signed transaction, base64 (resent while its blockhash is valid). Holds no key. */
  transaction: string;
  last_valid_block_height: bigint;
  /** `sent` is recorded before sending; `failed` makes the amount sweepable again. */
  status: 'sent' | 'confirmed' | 'failed';
  created_at: Generated<Date>;
  settled_at: Date | null;
}

export interface SolanaTables {
  crypto_deposit_addresses: CryptoDepositAddressesTable;
  crypto_transfers: CryptoTransfersTable;
  crypto_watch_cursors: CryptoWatchCursorsTable;
  solana_watchers: SolanaWatchersTable;
  crypto_sweeps: CryptoSweepsTable;
}
