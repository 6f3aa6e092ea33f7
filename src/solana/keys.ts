/**
 * Deposit keys and addresses on Solana (docs/getting-paid.md "Crypto deposits"). Every business
 * gets, per environment, an ed25519 key the platform holds (derived from a configured master seed)
 * and, as its deposit address, that key's associated token account for the USDC mint. The platform
 * can therefore always move what arrives (sweeps sign with the same derivation).
 *
 * Derivation (documented, stable; version `hmac-sha512-v1`): the key's 32-byte seed is the first
 * 32 bytes of HMAC-SHA512(master seed, `business:<business id>:<environment>`). The address shown is
 * the owner's public key (base58); USDC sent to it lands in its associated token account
 * (`findAssociatedTokenPda`, the SPL standard), which the watcher watches. Seeds and keys are never
 * logged: they live in CryptoKey objects marked not extractable.
 */
import { createHmac } from 'node:crypto';
import { type Address, address, createKeyPairFromPrivateKeyBytes, createSignerFromKeyPair, getAddressFromPublicKey, type KeyPairSigner } from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';

/** Name of the derivation, stored with every address (crypto_deposit_addresses.derivation). */
export const DEPOSIT_KEY_DERIVATION = 'hmac-sha512-v1';

/**
 * The sandbox's master seed when SOLANA_SANDBOX_DEPOSIT_SEED is unset: published, so anybody can
 * derive sandbox keys. Sandbox addresses are for tests on a test network (devnet) only.
 */
export const SANDBOX_DEPOSIT_SEED = '73616e64626f782d6f6e6c792d736f6c616e612d6465706f7369742d73656564';

/** The 32-byte ed25519 seed of the deposit key of (business, environment) under `masterSeedHex` (64 hex). */
export function depositKeySeed(masterSeedHex: string, businessId: string, environment: string): Uint8Array {
  const mac = createHmac('sha512', Buffer.from(masterSeedHex, 'hex')).update(`business:${businessId}:${environment}`).digest();
  return new Uint8Array(mac.subarray(0, 32));
}

/** A signer for the ed25519 key with the 32-byte `seed` (not extractable). */
export async function signerFromSeed(seed: Uint8Array): Promise<KeyPairSigner> {
  return createSignerFromKeyPair(await createKeyPairFromPrivateKeyBytes(seed, false));
}

/** A signer for a 64-hex-character seed from configuration (SOLANA_FEE_PAYER_SEED). */
export async function signerFromHexSeed(hex: string): Promise<KeyPairSigner> {
  return signerFromSeed(new Uint8Array(Buffer.from(hex, 'hex')));
}

/** The associated token account of `owner` for `mint` (SPL Token program). */
export async function associatedTokenAccount(owner: string, mint: string): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return ata;
}

/** A business's deposit address: the owner key's address and its token account for `mint`. */
export interface DepositAddress {
  /** base58 public key of the deposit key (what payers send USDC to). */
  owner: string;
  /** base58 associated token account of `owner` for `mint` (where the USDC lands; watched). */
  tokenAccount: string;
  mint: string;
}

/** The deposit address of (business, environment) under `masterSeedHex` for `mint`. */
export async function deriveDepositAddress(masterSeedHex: string, businessId: string, environment: string, mint: string): Promise<DepositAddress> {
  const kp = await createKeyPairFromPrivateKeyBytes(depositKeySeed(masterSeedHex, businessId, environment), false);
  const owner = await getAddressFromPublicKey(kp.publicKey);
  return { owner, tokenAccount: await associatedTokenAccount(owner, mint), mint };
}

/** The signer of the deposit key of (business, environment): what a sweep signs with. */
export async function depositSigner(masterSeedHex: string, businessId: string, environment: string): Promise<KeyPairSigner> {
  return signerFromSeed(depositKeySeed(masterSeedHex, businessId, environment));
}
