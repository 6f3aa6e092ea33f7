import type { Generated } from 'kysely';

/** USDC on Solana (migration 0061; docs/getting-paid.md "Crypto deposits"). Amounts are micro-USDC. */

/** A business's deposit address (src/core/funding/crypto-addresses.ts writes it). No key material. */
export interface CryptoDepositAddressesTable {
  /** `cda_…` */
  id: string;
  business_id: string;
  environment: string;
  /** `solana` (live) or `solana-devnet` (sandbox). */
  network: string;
  /** base58 public key of the deposit key (shown to payers). */
  owner_address: string;
  /** base58 associated token account of the owner for `mint` (watched). */
  token_account: string;
  mint: string;
  /** How the key was derived (src/solana/keys.ts DEPOSIT_KEY_DERIVATION). */
  derivation: string;
  created_at: Generated<Date>;
}

/**
 * One transaction seen touching a deposit token account (src/core/funding/crypto-watch.ts writes it).
 * Status: `received` (confirmed; deposit received, waiting for finality), `credited` (finalized; its
 * deposit's credit started), `below_minimum` (received, never credited), `dropped` (gone before
 * finality), `ignored` (failed, another mint, or not an incoming transfer).
 */
export interface CryptoTransfersTable {
  signature: string;
  token_account: string;
  business_id: string;
  environment: string;
  network: string;
  mint: string;
  /** Increase of the token account's balance, micro-USDC (0 for ignored transactions). */
  amount: bigint;
  slot: bigint;
  status: 'received' | 'credited' | 'below_minimum' | 'dropped' | 'ignored';
  deposit_id: string | null;
  seen_at: Generated<Date>;
  settled_at: Date | null;
}

/** The newest finalized signature the watcher has taken for a token account (getSignaturesForAddress `until`). */
export interface CryptoWatchCursorsTable {
  token_account: string;
  last_signature: string;
  updated_at: Generated<Date>;
}

/** What the watcher of an environment last reached (read by the metrics). */
export interface SolanaWatchersTable {
  environment: string;
  network: string;
  /** The chain's confirmed slot at the end of the last poll. */
  head_slot: bigint;
  /** The confirmed slot up to which every transfer was recorded (the last poll's start). */
  reached_slot: bigint;
  finalized_slot: bigint;
  polled_at: Date;
  /** The sweeps' fee payer balance at the last check (lamports), null before the first. */
  fee_payer_lamports: bigint | null;
  fee_payer_checked_at: Date | null;
}

/** A move of credited USDC to the treasury (src/core/funding/crypto-sweeps.ts writes it). */
export interface CryptoSweepsTable {
  /** `csw_…` */
  id: string;
  business_id: string;
  environment: string;
  token_account: string;
  treasury_token_account: string;
  amount: bigint;
  signature: string;
  /** The signed transaction, base64 wire format (sent again while its blockhash is valid). Holds no key. */
  transaction: string;
  last_valid_block_height: bigint;
  /** `sent` (recorded before sending), `confirmed` (finalized), `failed` (failed or expired: the amount is sweepable again). */
  status: 'sent' | 'confirmed' | 'failed';
  created_at: Generated<Date>;
  settled_at: Date | null;
}

/** The tables of migration 0061. */
export interface SolanaTables {
  crypto_deposit_addresses: CryptoDepositAddressesTable;
  crypto_transfers: CryptoTransfersTable;
  crypto_watch_cursors: CryptoWatchCursorsTable;
  solana_watchers: SolanaWatchersTable;
  crypto_sweeps: CryptoSweepsTable;
}
