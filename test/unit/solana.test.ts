/**
 * The pure part of reading USDC deposits (src/domain/solana.ts) and the deposit key derivation
 * (src/solana/keys.ts; docs/getting-paid.md "Deposit addresses").
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readIncomingTransfer, readMemo, type RpcTransaction } from '../../src/domain/solana';
import { depositKeySeed, depositSigner, deriveDepositAddress } from '../../src/solana/keys';

const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const OTHER = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
const OURS = 'B8t7ZHXmG9wFubsZCqg3Jw3AuDDH6qVpAWXF7imXUj8J';

function tx(pre: Array<[number, string, string]>, post: Array<[number, string, string]>, err: unknown = null, extra: Partial<RpcTransaction['transaction']['message']> = {}): RpcTransaction {
  const bal = (l: Array<[number, string, string]>) => l.map(([accountIndex, mint, amount]) => ({ accountIndex, mint, uiTokenAmount: { amount, decimals: 6 } }));
  return {
    slot: 10n,
    meta: { err, preTokenBalances: bal(pre), postTokenBalances: bal(post), loadedAddresses: { writable: [], readonly: [] } },
    transaction: { message: { accountKeys: ['payer', 'src', OURS, 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'], instructions: [], ...extra } },
  };
}

describe('readIncomingTransfer', () => {
  it('the increase of our token account for the mint (a missing pre entry is 0)', () => {
    expect(readIncomingTransfer(tx([[2, MINT, '1000000']], [[2, MINT, '26500000']]), OURS, MINT)).toEqual({ kind: 'incoming', amount: 25_500_000n });
    expect(readIncomingTransfer(tx([], [[2, MINT, '7000000']]), OURS, MINT)).toEqual({ kind: 'incoming', amount: 7_000_000n });
  });
  it('failed, another mint, no increase (outgoing), not our account: ignored', () => {
    expect(readIncomingTransfer(tx([], [[2, MINT, '5']], { InstructionError: [0, { Custom: 1 }] }), OURS, MINT)).toEqual({ kind: 'ignored', reason: 'failed' });
    expect(readIncomingTransfer(tx([], [[2, OTHER, '5']]), OURS, MINT)).toEqual({ kind: 'ignored', reason: 'other_mint' });
    expect(readIncomingTransfer(tx([[2, MINT, '9']], [[2, MINT, '4']]), OURS, MINT)).toEqual({ kind: 'ignored', reason: 'no_increase' });
    expect(readIncomingTransfer(tx([[1, MINT, '9']], [[1, MINT, '4']]), 'elsewhere', MINT)).toEqual({ kind: 'ignored', reason: 'not_our_account' });
  });
});

describe('readMemo', () => {
  it('the text of the first top-level SPL Memo instruction (base58 data), else null', () => {
    // '9GgwaFa' is base58 of the bytes of "INV-1"
    const withMemo = tx([], [], null, { instructions: [{ programIdIndex: 3, data: '9GgwaFa' }] });
    expect(readMemo(withMemo)).toBe('INV-1');
    expect(readMemo(tx([], [], null, { instructions: [{ programIdIndex: 1, data: '9GgwaFa' }] }))).toBeNull();
    expect(readMemo(tx([], []))).toBeNull();
  });
});

describe('deposit keys', () => {
  it('seed = first 32 bytes of HMAC-SHA512(master, business:<id>:<env>); the address is its public key; per business and environment', async () => {
    const master = 'ab'.repeat(32);
    const expected = createHmac('sha512', Buffer.from(master, 'hex')).update('business:biz_1:live').digest().subarray(0, 32);
    expect(Buffer.from(depositKeySeed(master, 'biz_1', 'live'))).toEqual(expected);
    const a = await deriveDepositAddress(master, 'biz_1', 'live', MINT);
    expect((await depositSigner(master, 'biz_1', 'live')).address).toBe(a.owner);
    expect((await deriveDepositAddress(master, 'biz_1', 'live', MINT)).owner).toBe(a.owner);
    expect((await deriveDepositAddress(master, 'biz_1', 'sandbox', MINT)).owner).not.toBe(a.owner);
    expect((await deriveDepositAddress(master, 'biz_2', 'live', MINT)).owner).not.toBe(a.owner);
    expect(a.tokenAccount).not.toBe(a.owner);
  });
});
