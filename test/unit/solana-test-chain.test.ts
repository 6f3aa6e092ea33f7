/**
 * The Solana test chain (tools/solana-test-chain; docs/getting-paid.md "Test chain"): its JSON-RPC
 * answers are read with @solana/kit's RPC client (the shapes are real), commitment levels advance
 * with slots, and a transaction dropped before finality disappears with its effects.
 */
import { address, createSolanaRpc, generateKeyPairSigner, getBase58Encoder, signature } from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChainRpcServer, createPayerWithMint, MEMO_PROGRAM, sendToken, startChainRpc, TestChain, type TestPayer } from '../../tools/solana-test-chain';

let chain: TestChain;
let server: ChainRpcServer;
let rpc: ReturnType<typeof createSolanaRpc>;
let payer: TestPayer;

beforeAll(async () => {
  chain = new TestChain({ finalityDepth: 4 });
  server = await startChainRpc(chain);
  rpc = createSolanaRpc(server.url);
  payer = await createPayerWithMint(chain, 1_000_000_000n);
  chain.advance(10);
});
afterAll(async () => {
  await server?.close();
  chain?.close();
});

describe('Solana test chain over JSON-RPC', () => {
  it('a transfer is confirmed, then finalized; getTransaction shows the token balance change of the token account', async () => {
    const owner = await generateKeyPairSigner();
    const [ata] = await findAssociatedTokenPda({ owner: owner.address, mint: address(payer.mint), tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const sig = await sendToken(chain, payer, owner.address, 5_000_000n, { memo: 'INV-1' });
    // processed only: neither list shows it yet
    expect(await rpc.getSignaturesForAddress(ata, { commitment: 'confirmed' }).send()).toEqual([]);
    chain.advance(1);
    const confirmed = await rpc.getSignaturesForAddress(ata, { commitment: 'confirmed' }).send();
    expect(confirmed.map((s) => [s.signature, s.confirmationStatus, s.err])).toEqual([[sig, 'confirmed', null]]);
    expect(await rpc.getSignaturesForAddress(ata, { commitment: 'finalized' }).send()).toEqual([]);
    expect(await rpc.getTransaction(signature(sig), { commitment: 'finalized', encoding: 'json', maxSupportedTransactionVersion: 0 }).send()).toBeNull();
    const tx = await rpc.getTransaction(signature(sig), { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(tx).not.toBeNull();
    const idx = tx!.transaction.message.accountKeys.indexOf(ata);
    expect(idx).toBeGreaterThan(0);
    expect(tx!.meta!.preTokenBalances!.find((b) => b.accountIndex === idx)).toBeUndefined();
    expect(tx!.meta!.postTokenBalances!.find((b) => b.accountIndex === idx)).toMatchObject({ mint: payer.mint, owner: owner.address, uiTokenAmount: { amount: '5000000', decimals: 6, uiAmountString: '5' } });
    expect(tx!.meta!.err).toBeNull();
    const keys = tx!.transaction.message.accountKeys;
    const memo = tx!.transaction.message.instructions.find((ix) => keys[ix.programIdIndex] === MEMO_PROGRAM);
    expect(Buffer.from(getBase58Encoder().encode(memo!.data)).toString('utf8')).toBe('INV-1');
    expect(tx!.version).toBe(0);
    chain.advance(4);
    const fin = await rpc.getSignaturesForAddress(ata, { commitment: 'finalized' }).send();
    expect(fin.map((s) => [s.signature, s.confirmationStatus])).toEqual([[sig, 'finalized']]);
    expect((await rpc.getTokenAccountBalance(ata).send()).value).toMatchObject({ amount: '5000000', decimals: 6 });
    expect((await rpc.getBalance(payer.payer.address).send()).value).toBeGreaterThan(0n);
    const slot = await rpc.getSlot({ commitment: 'finalized' }).send();
    expect(slot).toBe(BigInt(chain.slot('finalized')));
    expect((await rpc.getLatestBlockhash().send()).value.blockhash).toEqual(expect.any(String));
    const st = await rpc.getSignatureStatuses([signature(sig)]).send();
    expect(st.value[0]?.confirmationStatus).toBe('finalized');
  });

  it('`until` and `before` page the list; a dropped transaction disappears with its effects; a finalized one cannot be dropped', async () => {
    const owner = await generateKeyPairSigner();
    const [ata] = await findAssociatedTokenPda({ owner: owner.address, mint: address(payer.mint), tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const s1 = await sendToken(chain, payer, owner.address, 1_000_000n);
    chain.advance(5);
    const s2 = await sendToken(chain, payer, owner.address, 2_000_000n);
    const s3 = await sendToken(chain, payer, owner.address, 3_000_000n);
    chain.advance(1);
    const all = await rpc.getSignaturesForAddress(ata, { commitment: 'confirmed' }).send();
    expect(all.map((s) => s.signature)).toEqual([s3, s2, s1]);
    expect((await rpc.getSignaturesForAddress(ata, { commitment: 'confirmed', until: signature(s1) }).send()).map((s) => s.signature)).toEqual([s3, s2]);
    expect((await rpc.getSignaturesForAddress(ata, { commitment: 'confirmed', before: signature(s3), limit: 1 }).send()).map((s) => s.signature)).toEqual([s2]);
    chain.drop(s2);
    expect((await rpc.getSignaturesForAddress(ata, { commitment: 'confirmed' }).send()).map((s) => s.signature)).toEqual([s3, s1]);
    expect(await rpc.getTransaction(signature(s2), { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send()).toBeNull();
    expect((await rpc.getTokenAccountBalance(ata).send()).value.amount).toBe('4000000');
    expect(() => chain.drop(s1)).toThrow(/finalized/);
    await expect(rpc.getSignaturesForAddress(ata, { commitment: 'processed' as never }).send()).rejects.toThrow();
  });

  it('a failing transfer is refused at preflight; with skipPreflight it lands failed (err set)', async () => {
    const owner = await generateKeyPairSigner();
    await expect(sendToken(chain, payer, owner.address, 10n ** 15n)).rejects.toThrow(/simulation failed/);
    const sig = await sendToken(chain, payer, owner.address, 10n ** 15n, { skipPreflight: true });
    chain.advance(1);
    const tx = await rpc.getTransaction(signature(sig), { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(tx!.meta!.err).not.toBeNull();
  });
});
