/**
 * Deposit keys and addresses on Solana (docs/getting-paid.md "Crypto deposits"). Derivation
 * `hmac-sha512-v1` (stable): seed = first 32 bytes of HMAC-SHA512(master seed,
 * `business:<id>:<environment>`); the deposit address is that key's associated token account for
 * the USDC mint. Seeds and keys are never logged (non-extractable CryptoKeys).
 */
import { createHmac } from 'node:crypto';
import type { Address, KeyPairSigner } from '@solana/kit';

// @solana/kit and @solana-program/token are loaded at the first call (docs/operations.md "Idle cost").
const kit = () => import('@solana/kit');
const tokenProgram = () => import('@solana-program/token');

export const DEPOSIT_KEY_DERIVATION = 'hmac-sha512-v1';

/** Published (anybody can derive sandbox keys): for test networks only. */
export const SANDBOX_DEPOSIT_SEED = '73616e64626f782d6f6e6c792d736f6c616e612d6465706f7369742d73656564';

/** The 32-byte ed25519 seed of the deposit key of (business, environment) under `masterSeedHex` (64 hex). */
export function depositKeySeed(masterSeedHex: string, businessId: string, environment: string): Uint8Array {
  const mac = createHmac('sha512', Buffer.from(masterSeedHex, 'hex')).update(`business:${businessId}:${environment}`).digest();
  return new Uint8Array(mac.subarray(0, 32));
}

export async function signerFromSeed(seed: Uint8Array): Promise<KeyPairSigner> {
  const { createKeyPairFromPrivateKeyBytes, createSignerFromKeyPair } = await kit();
  return createSignerFromKeyPair(await createKeyPairFromPrivateKeyBytes(seed, false));
}

export async function signerFromHexSeed(hex: string): Promise<KeyPairSigner> {
  return signerFromSeed(new Uint8Array(Buffer.from(hex, 'hex')));
}

export async function associatedTokenAccount(owner: string, mint: string): Promise<Address> {
  const [{ address }, { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS }] = await Promise.all([kit(), tokenProgram()]);
  const [ata] = await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return ata;
}

export interface DepositAddress {
  /** What payers send USDC to. */
  owner: string;
  /** Where the USDC lands; watched. */
  tokenAccount: string;
  mint: string;
}

export async function deriveDepositAddress(masterSeedHex: string, businessId: string, environment: string, mint: string): Promise<DepositAddress> {
  const { createKeyPairFromPrivateKeyBytes, getAddressFromPublicKey } = await kit();
  const kp = await createKeyPairFromPrivateKeyBytes(depositKeySeed(masterSeedHex, businessId, environment), false);
  const owner = await getAddressFromPublicKey(kp.publicKey);
  return { owner, tokenAccount: await associatedTokenAccount(owner, mint), mint };
}

export async function depositSigner(masterSeedHex: string, businessId: string, environment: string): Promise<KeyPairSigner> {
  return signerFromSeed(depositKeySeed(masterSeedHex, businessId, environment));
}
