/**
 * Reading USDC deposits from Solana transactions (docs/getting-paid.md "Crypto deposits"): the
 * amount is our token account's balance change (pre/post token balances), not instruction parsing.
 */

/** The SPL Memo programs (v2 and v1): a top-level memo instruction carries the payer's reference. */
export const MEMO_PROGRAMS = ['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo'] as const;

export interface RpcTokenBalance {
  accountIndex: number;
  mint: string;
  uiTokenAmount: { amount: string; decimals: number };
}

export interface RpcTransaction {
  slot: bigint | number;
  meta: {
    err: unknown;
    preTokenBalances?: readonly RpcTokenBalance[] | null;
    postTokenBalances?: readonly RpcTokenBalance[] | null;
    loadedAddresses?: { writable: readonly string[]; readonly: readonly string[] } | null;
  } | null;
  transaction: {
    message: {
      accountKeys: readonly string[];
      instructions: readonly { programIdIndex: number; data: string }[];
    };
  };
}

export type TransferReading =
  | { kind: 'incoming'; amount: bigint }
  | { kind: 'ignored'; reason: 'failed' | 'not_our_account' | 'other_mint' | 'no_increase' | 'decimals' };

/** Base units `tx` brought to `tokenAccount` for `mint` (a missing pre entry is 0); failed, other mint or no increase is ignored. */
export function readIncomingTransfer(tx: RpcTransaction, tokenAccount: string, mint: string, decimals = 6): TransferReading {
  if (!tx.meta || tx.meta.err !== null) return { kind: 'ignored', reason: 'failed' };
  const keys = [...tx.transaction.message.accountKeys, ...(tx.meta.loadedAddresses?.writable ?? []), ...(tx.meta.loadedAddresses?.readonly ?? [])];
  const index = keys.indexOf(tokenAccount);
  if (index < 0) return { kind: 'ignored', reason: 'not_our_account' };
  const find = (list: readonly RpcTokenBalance[] | null | undefined) => (list ?? []).find((b) => b.accountIndex === index);
  const pre = find(tx.meta.preTokenBalances);
  const post = find(tx.meta.postTokenBalances);
  const entry = post ?? pre;
  if (!entry) return { kind: 'ignored', reason: 'not_our_account' };
  if (entry.mint !== mint || (pre && pre.mint !== mint)) return { kind: 'ignored', reason: 'other_mint' };
  if (entry.uiTokenAmount.decimals !== decimals) return { kind: 'ignored', reason: 'decimals' };
  const delta = BigInt(post?.uiTokenAmount.amount ?? '0') - BigInt(pre?.uiTokenAmount.amount ?? '0');
  return delta > 0n ? { kind: 'incoming', amount: delta } : { kind: 'ignored', reason: 'no_increase' };
}

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58Bytes(s: string): Uint8Array | null {
  let n = 0n;
  for (const ch of s) {
    const v = B58.indexOf(ch);
    if (v < 0) return null;
    n = n * 58n + BigInt(v);
  }
  const out: number[] = [];
  while (n > 0n) {
    out.unshift(Number(n & 255n));
    n >>= 8n;
  }
  for (const ch of s) {
    if (ch !== '1') break;
    out.unshift(0);
  }
  return new Uint8Array(out);
}

/** The first top-level memo's text (at most 140 characters), or null. */
export function readMemo(tx: RpcTransaction): string | null {
  const keys = tx.transaction.message.accountKeys;
  for (const ix of tx.transaction.message.instructions) {
    if (!(MEMO_PROGRAMS as readonly string[]).includes(keys[ix.programIdIndex] ?? '')) continue;
    const bytes = base58Bytes(ix.data);
    if (!bytes) continue;
    const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes).trim();
    return text.length ? text.slice(0, 140) : null;
  }
  return null;
}
