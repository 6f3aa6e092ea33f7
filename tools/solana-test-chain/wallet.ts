/**
 * A payer on the test chain (tests, demo, chaos): creates a USDC-like mint, mints to itself and
 * sends tokens to an owner's associated token account (created if missing, as wallets do), with an
 * optional memo (SPL Memo: the payer's reference). Transactions go through the chain like any sent
 * over the RPC.
 */
import {
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Blockhash,
  AccountRole,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import type { TestChain } from './chain';

/** The SPL Memo program (v2). */
export const MEMO_PROGRAM = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/** A memo instruction carrying `text`, signed by `signer`. */
function memoInstruction(text: string, signer: KeyPairSigner): Instruction {
  return {
    programAddress: MEMO_PROGRAM,
    accounts: [{ address: signer.address, role: AccountRole.READONLY_SIGNER, signer } as never],
    data: new Uint8Array(Buffer.from(text, 'utf8')),
  };
}

/** Signs `ixs` with `payer` as fee payer and sends them to `chain`; returns the signature. */
export async function sendInstructions(chain: TestChain, payer: KeyPairSigner, ixs: Instruction[], opts: { skipPreflight?: boolean } = {}): Promise<string> {
  const { blockhash, lastValidBlockHeight } = chain.latestBlockhash();
  const tx = await pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as Blockhash, lastValidBlockHeight: BigInt(lastValidBlockHeight) }, m),
    (m) => appendTransactionMessageInstructions(ixs, m),
    (m) => signTransactionMessageWithSigners(m),
  );
  const wire = new Uint8Array(Buffer.from(getBase64EncodedWireTransaction(tx), 'base64'));
  return chain.send(wire, opts);
}

/** A funded payer with its own token mint (6 decimals, like USDC) and a balance of it. */
export interface TestPayer {
  payer: KeyPairSigner;
  mint: string;
  /** The payer's token account of `mint`. */
  tokenAccount: string;
}

/** Creates a mint of 6 decimals whose authority is a new funded payer, and mints `supply` base units to the payer. */
export async function createPayerWithMint(chain: TestChain, supply: bigint): Promise<TestPayer> {
  const payer = await generateKeyPairSigner();
  const mint = await generateKeyPairSigner();
  chain.airdrop(payer.address, 100_000_000_000n);
  const space = BigInt(getMintSize());
  const [ata] = await findAssociatedTokenPda({ owner: payer.address, mint: mint.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  await sendInstructions(chain, payer, [
    getCreateAccountInstruction({ payer, newAccount: mint, lamports: chain.runtime.minimumBalanceForRentExemption(space), space, programAddress: TOKEN_PROGRAM_ADDRESS }),
    getInitializeMint2Instruction({ mint: mint.address, decimals: 6, mintAuthority: payer.address }),
    getCreateAssociatedTokenIdempotentInstruction({ payer, ata, owner: payer.address, mint: mint.address }),
    getMintToInstruction({ mint: mint.address, token: ata, mintAuthority: payer, amount: supply }),
  ]);
  return { payer, mint: mint.address, tokenAccount: ata };
}

/**
 * Sends `amount` base units of the payer's mint to `owner` (its associated token account, created
 * if missing), with `memo` when given. `skipPreflight`: a failing transfer lands failed.
 */
export async function sendToken(chain: TestChain, from: TestPayer, owner: string, amount: bigint, opts: { memo?: string; skipPreflight?: boolean } = {}): Promise<string> {
  const [ata] = await findAssociatedTokenPda({ owner: address(owner), mint: address(from.mint), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const ixs: Instruction[] = [
    getCreateAssociatedTokenIdempotentInstruction({ payer: from.payer, ata, owner: address(owner), mint: address(from.mint) }),
    getTransferCheckedInstruction({ source: address(from.tokenAccount), mint: address(from.mint), destination: ata, authority: from.payer, amount, decimals: 6 }),
  ];
  if (opts.memo) ixs.push(memoInstruction(opts.memo, from.payer));
  return sendInstructions(chain, from.payer, ixs, { skipPreflight: opts.skipPreflight });
}

/** Gives `payer`'s signer lamports (e.g. a sweep fee payer). */
export function fund(chain: TestChain, to: string, lamportsAmount: bigint): void {
  chain.airdrop(to, lamportsAmount);
}
