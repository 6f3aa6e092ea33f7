/** USDC on Solana as a seam module (docs/architecture.md "Seams"); seeds are secrets, never logged or stored. */
import { z } from 'zod';
import type { SeamModule } from '../seams/module';
import { isoDuration } from '../seams/settings';

const base58Address = () => z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'a base58 Solana address');
const hexSeed = () => z.string().regex(/^[0-9a-fA-F]{64}$/, '64 hex characters (32 bytes)');

/** The Solana network's variables: the live network (`SOLANA_*`) and the sandbox's test network (`SOLANA_SANDBOX_*`). */
export const SOLANA_SETTINGS = {
  SOLANA_RPC_URL: z
    .string()
    .url()
    .optional()
    .describe('JSON-RPC URL of a Solana node (mainnet); unset: live `GET /funding/crypto` is 400 `channel_unavailable`, live crypto payment links not ready'),
  SOLANA_USDC_MINT: base58Address()
    .optional()
    .describe('the USDC mint credited (mainnet: `EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v`); every other mint is ignored'),
  SOLANA_DEPOSIT_SEED: hexSeed()
    .optional()
    .describe(
      'master seed of the live deposit keys, 64 hex characters (32 bytes); a business\'s key seed is the first 32 bytes of HMAC-SHA512(seed, `business:<id>:<environment>`). Changing it changes every new address: never change it while addresses are in use',
    ),
  SOLANA_MINIMUM_DEPOSIT: z
    .string()
    .regex(/^[0-9]{1,7}(\.[0-9]{1,6})?$/, 'a USDC amount such as 1.00')
    .default('1.00')
    .describe('smallest credited deposit (USDC); smaller ones stay `received`, visible, never credited'),
  SOLANA_POLL_INTERVAL: isoDuration('PT5S').default('PT5S').describe('how often the watcher asks the node for new signatures'),
  SOLANA_TREASURY_TOKEN_ACCOUNT: base58Address()
    .optional()
    .describe('the treasury wallet\'s token account for the USDC mint; sweeps move credited deposits there; unset: no sweeps'),
  SOLANA_FEE_PAYER_SEED: hexSeed()
    .optional()
    .describe('the sweeps\' fee payer key, 32-byte ed25519 seed as 64 hex characters; unset: no sweeps'),
  SOLANA_FEE_PAYER_MIN_LAMPORTS: z.coerce
    .number()
    .int()
    .min(0)
    .default(50_000_000)
    .describe('below it (lamports; the default is 0.05 SOL) the fee payer is reported low (alert `SolanaFeePayerLow`)'),
  SOLANA_SWEEP_INTERVAL: isoDuration('PT10M').default('PT10M').describe('how often credited deposits are swept'),
  SOLANA_SANDBOX_RPC_URL: z
    .string()
    .url()
    .optional()
    .describe('a test network\'s node (devnet) that the sandbox watcher watches; unset: sandbox addresses shown, not watched'),
  SOLANA_SANDBOX_USDC_MINT: base58Address()
    .default('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU')
    .describe('the sandbox\'s USDC mint (the default is devnet USDC)'),
  SOLANA_SANDBOX_DEPOSIT_SEED: hexSeed()
    .optional()
    .describe('master seed of the sandbox deposit keys (64 hex); unset: the published sandbox seed (`src/solana/keys.ts` `SANDBOX_DEPOSIT_SEED`)'),
};

/** The Solana network module: its settings; src/solana/network.ts reads them (parsed) per environment. */
export const SOLANA_MODULE: SeamModule<typeof SOLANA_SETTINGS> = { id: 'solana', settings: SOLANA_SETTINGS };

/** The Solana seam's registry: one network module today (a plain array, docs/architecture.md "Seams"). */
export const SOLANA_NETWORKS = [SOLANA_MODULE] as const;
