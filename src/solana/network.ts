/** Which Solana network serves which environment (docs/configuration.md "USDC on Solana"). Pure. */
import { parseAmount, USDC } from '../domain/money';
import type { SettingsOf } from '../seams/module';
import { SANDBOX_DEPOSIT_SEED } from './keys';
import type { SOLANA_MODULE } from './settings';

/** Secrets (`seedHex`) are never logged. */
export interface SolanaNetwork {
  environment: 'live' | 'sandbox';
  /** `solana`; the sandbox `solana-devnet`. */
  network: string;
  /** Null: addresses shown, not watched (sandbox only). */
  rpcUrl: string | null;
  mint: string;
  seedHex: string;
  /** Micro-USDC. */
  minimumDeposit: bigint;
  /** Null: no sweeps. */
  sweep: { treasuryTokenAccount: string; feePayerSeedHex: string; feePayerMinLamports: bigint } | null;
}

/** The Solana module's parsed settings (src/solana/settings.ts); the loaded `Config` carries them. */
type SolanaConfig = SettingsOf<typeof SOLANA_MODULE>;

/** Null when crypto funding is not available in `environment`. */
export function solanaNetworkFor(config: SolanaConfig, environment: string): SolanaNetwork | null {
  const minimumDeposit = parseAmount(config.SOLANA_MINIMUM_DEPOSIT, USDC);
  const sweep =
    config.SOLANA_TREASURY_TOKEN_ACCOUNT && config.SOLANA_FEE_PAYER_SEED
      ? { treasuryTokenAccount: config.SOLANA_TREASURY_TOKEN_ACCOUNT, feePayerSeedHex: config.SOLANA_FEE_PAYER_SEED, feePayerMinLamports: BigInt(config.SOLANA_FEE_PAYER_MIN_LAMPORTS) }
      : null;
  if (environment === 'live') {
    if (!config.SOLANA_RPC_URL || !config.SOLANA_USDC_MINT || !config.SOLANA_DEPOSIT_SEED) return null;
    return { environment, network: 'solana', rpcUrl: config.SOLANA_RPC_URL, mint: config.SOLANA_USDC_MINT, seedHex: config.SOLANA_DEPOSIT_SEED, minimumDeposit, sweep };
  }
  if (environment === 'sandbox') {
    return {
      environment,
      network: 'solana-devnet',
      rpcUrl: config.SOLANA_SANDBOX_RPC_URL ?? null,
      mint: config.SOLANA_SANDBOX_USDC_MINT,
      seedHex: config.SOLANA_SANDBOX_DEPOSIT_SEED ?? SANDBOX_DEPOSIT_SEED,
      minimumDeposit,
      sweep: null,
    };
  }
  return null;
}

export function watchedSolanaNetworks(config: SolanaConfig): SolanaNetwork[] {
  return (['live', 'sandbox'] as const).map((e) => solanaNetworkFor(config, e)).filter((n): n is SolanaNetwork => !!n && !!n.rpcUrl);
}
