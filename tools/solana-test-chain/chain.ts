/**
 * A Solana test chain: the real SVM and SPL programs (litesvm, in process) with the commitment
 * levels of a real cluster simulated over it (docs/getting-paid.md "Test chain").
 *
 * Slots: every accepted transaction lands in a slot of its own at the head (`processed`); a slot is
 * `confirmed` once the head is `confirmationDepth` slots past it and `finalized` once it is
 * `finalityDepth` slots past it. `advance(n)` moves the head (or `autoAdvanceMs` does it on a
 * timer). A transaction not yet finalized can be dropped (`drop`), as a fork that loses: the state
 * is rebuilt from the last finalized snapshot (litesvm toBytes/fromBytes) by replaying every other
 * transaction since, which then may fail if it spent what the dropped one brought.
 *
 * Token balances (`preTokenBalances`/`postTokenBalances`) are read from the accounts before and after
 * each transaction, as a validator's transaction status service does.
 */
import {
  type Address,
  address,
  getBase58Decoder,
  getBase58Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  lamports,
  type Transaction,
} from '@solana/kit';
import { getMintDecoder, getTokenDecoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';

/** A JSON-RPC error as a node returns it (`code`, `message`). */
export class ChainRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** A token balance entry of a transaction's meta (RPC shape). */
export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}

/** One recorded transaction. */
interface Entry {
  kind: 'transaction' | 'airdrop';
  signature: string;
  slot: number;
  blockTime: number;
  dropped: boolean;
  /** Wire bytes (transactions) or the airdrop's target and amount. */
  wire?: Uint8Array;
  airdrop?: { to: Address; lamports: bigint };
  accountKeys: string[];
  version: 'legacy' | 0;
  message: Record<string, unknown>;
  meta: Record<string, unknown>;
  err: unknown;
}

/** Options of {@link TestChain}. */
export interface TestChainOptions {
  /** Slots past a transaction's slot before it is confirmed (default 1). */
  confirmationDepth?: number;
  /** Slots past a transaction's slot before it is finalized (default 4; mainnet ~32). */
  finalityDepth?: number;
  /** Advance the head by one slot every this many ms (0 / unset: only `advance`). */
  autoAdvanceMs?: number;
}

/** What a commitment level sees. */
export type Commitment = 'processed' | 'confirmed' | 'finalized';

const b58 = getBase58Decoder();
const b58enc = getBase58Encoder();

function tokenInfo(svm: LiteSVM, key: string): { mint: string; owner: string; amount: bigint; decimals: number } | null {
  const acc = svm.getAccount(address(key));
  if (!acc.exists || acc.programAddress !== TOKEN_PROGRAM_ADDRESS || acc.data.length !== 165) return null;
  const t = getTokenDecoder().decode(acc.data);
  const mintAcc = svm.getAccount(t.mint);
  const decimals = mintAcc.exists ? getMintDecoder().decode(mintAcc.data).decimals : 0;
  return { mint: t.mint, owner: t.owner, amount: t.amount, decimals };
}

function uiAmount(amount: bigint, decimals: number) {
  const s = amount.toString().padStart(decimals + 1, '0');
  const str = decimals ? `${s.slice(0, -decimals)}.${s.slice(-decimals)}`.replace(/\.?0+$/, '') : s;
  // uiAmount is a float in the RPC protocol; nothing of ours reads it (amounts are taken from `amount`).
  return { amount: amount.toString(), decimals, uiAmount: Number(str), uiAmountString: str };
}

function tokenBalances(svm: LiteSVM, keys: string[]): TokenBalance[] {
  const out: TokenBalance[] = [];
  keys.forEach((k, i) => {
    const t = tokenInfo(svm, k);
    if (t) out.push({ accountIndex: i, mint: t.mint, owner: t.owner, programId: TOKEN_PROGRAM_ADDRESS, uiTokenAmount: uiAmount(t.amount, t.decimals) });
  });
  return out;
}

/** The chain (see the file header). */
export class TestChain {
  private svm: LiteSVM;
  private entries: Entry[] = [];
  private bySignature = new Map<string, Entry>();
  private base: { bytes: Uint8Array; index: number };
  private head = 1;
  private timer: NodeJS.Timeout | undefined;
  readonly confirmationDepth: number;
  readonly finalityDepth: number;

  constructor(opts: TestChainOptions = {}) {
    this.svm = new LiteSVM();
    this.confirmationDepth = opts.confirmationDepth ?? 1;
    this.finalityDepth = opts.finalityDepth ?? 4;
    this.base = { bytes: this.svm.toBytes(), index: 0 };
    if (opts.autoAdvanceMs) {
      this.timer = setInterval(() => this.advance(1), opts.autoAdvanceMs);
      this.timer.unref();
    }
  }

  /** Stops the auto-advance timer. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** The slot a commitment level has reached. */
  slot(commitment: Commitment = 'finalized'): number {
    if (commitment === 'processed') return this.head;
    if (commitment === 'confirmed') return Math.max(0, this.head - this.confirmationDepth);
    return Math.max(0, this.head - this.finalityDepth);
  }

  /** Moves the head `n` slots on; refreshes the finalized snapshot when nothing after it is pending. */
  advance(n = 1): void {
    this.head += n;
    const fin = this.slot('finalized');
    const after = this.entries.slice(this.base.index);
    if (after.length > 0 && after.every((e) => e.dropped || e.slot <= fin)) {
      this.base = { bytes: this.svm.toBytes(), index: this.entries.length };
    }
  }

  /** The blockhash transactions are built with, and its last valid block height. */
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    return { blockhash: this.svm.latestBlockhash(), lastValidBlockHeight: this.head + 150 };
  }

  /** Gives `to` lamports (not listed by the RPC; replayed after a drop). */
  airdrop(to: string, amount: bigint): void {
    this.svm.airdrop(address(to), lamports(amount));
    this.head += 1;
    this.record({ kind: 'airdrop', signature: `airdrop:${this.entries.length}`, slot: this.head, blockTime: Math.floor(Date.now() / 1000), dropped: false, airdrop: { to: address(to), lamports: amount }, accountKeys: [], version: 'legacy', message: {}, meta: {}, err: null });
  }

  private record(e: Entry) {
    this.entries.push(e);
    this.bySignature.set(e.signature, e);
  }

  /** Runs `wire` on the SVM and returns what a node records about it. */
  private execute(wire: Uint8Array) {
    const tx = getTransactionDecoder().decode(wire) as Transaction;
    const compiled = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    if (compiled.version !== 'legacy' && compiled.version !== 0) throw new ChainRpcError(-32602, `transaction version ${compiled.version} is not supported`);
    const keys = compiled.staticAccounts.map(String);
    const preBalances = keys.map((k) => Number(this.svm.getBalance(address(k)) ?? 0n));
    const preTokenBalances = tokenBalances(this.svm, keys);
    const result = this.svm.sendTransaction(tx);
    const failed = result instanceof FailedTransactionMetadata;
    const meta = failed ? result.meta() : result;
    const err = failed ? { InstructionError: [0, { Custom: 1 }], litesvm: String(result.err()) } : null;
    const postBalances = keys.map((k) => Number(this.svm.getBalance(address(k)) ?? 0n));
    const postTokenBalances = tokenBalances(this.svm, keys);
    const signature = b58.decode(Object.values(tx.signatures)[0] as Uint8Array);
    const version: 'legacy' | 0 = compiled.version === 'legacy' ? 'legacy' : 0;
    const message: Record<string, unknown> = {
      accountKeys: keys,
      header: {
        numRequiredSignatures: compiled.header.numSignerAccounts,
        numReadonlySignedAccounts: compiled.header.numReadonlySignerAccounts,
        numReadonlyUnsignedAccounts: compiled.header.numReadonlyNonSignerAccounts,
      },
      recentBlockhash: (compiled as { lifetimeToken?: string }).lifetimeToken,
      instructions: compiled.instructions.map((ix) => ({
        programIdIndex: ix.programAddressIndex,
        accounts: ix.accountIndices ?? [],
        data: b58.decode(ix.data ?? new Uint8Array()),
        stackHeight: null,
      })),
      ...(version === 0 ? { addressTableLookups: [] } : {}),
    };
    const fee = 5000 * compiled.header.numSignerAccounts;
    const metaJson = {
      err,
      status: err ? { Err: err } : { Ok: null },
      fee,
      preBalances,
      postBalances,
      preTokenBalances,
      postTokenBalances,
      innerInstructions: [],
      logMessages: meta.logs(),
      rewards: [],
      loadedAddresses: { readonly: [], writable: [] },
      computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
    };
    return { signature, keys, version, message, meta: metaJson, err, failed, logs: meta.logs() };
  }

  /**
   * sendTransaction: runs the transaction (wire bytes). A failing one is refused with the node's
   * preflight error (-32002) unless `skipPreflight`, when it lands as a failed transaction. Sending
   * a signature again returns it without running it twice.
   */
  send(wire: Uint8Array, opts: { skipPreflight?: boolean } = {}): string {
    const tx = getTransactionDecoder().decode(wire) as Transaction;
    const sig = b58.decode(Object.values(tx.signatures)[0] as Uint8Array);
    const known = this.bySignature.get(sig);
    if (known && !known.dropped) return sig;
    if (!opts.skipPreflight) {
      const sim = this.svm.simulateTransaction(tx);
      if (sim instanceof FailedTransactionMetadata) {
        throw new ChainRpcError(-32002, `Transaction simulation failed: ${String(sim.err())}; logs: ${sim.meta().logs().join(' | ')}`);
      }
    }
    const r = this.execute(wire);
    this.head += 1;
    const entry: Entry = { kind: 'transaction', signature: r.signature, slot: this.head, blockTime: Math.floor(Date.now() / 1000), dropped: false, wire, accountKeys: r.keys, version: r.version, message: r.message, meta: r.meta, err: r.err };
    if (known) this.entries.splice(this.entries.indexOf(known), 1);
    this.record(entry);
    return r.signature;
  }

  /** Whether `signature` is visible at `commitment`. */
  private visible(e: Entry | undefined, commitment: Commitment): e is Entry {
    return !!e && !e.dropped && e.kind === 'transaction' && e.slot <= this.slot(commitment);
  }

  /**
   * Drops a transaction not yet finalized (a fork that lost): it and its effects disappear, the
   * others since the last finalized snapshot are replayed. Throws for a finalized or unknown one.
   */
  drop(signature: string): void {
    const e = this.bySignature.get(signature);
    if (!e || e.dropped) throw new Error(`unknown transaction ${signature}`);
    if (e.slot <= this.slot('finalized')) throw new Error(`transaction ${signature} is finalized; it cannot be dropped`);
    e.dropped = true;
    this.svm = LiteSVM.fromBytes(this.base.bytes);
    for (const x of this.entries.slice(this.base.index)) {
      if (x.dropped) continue;
      if (x.kind === 'airdrop' && x.airdrop) this.svm.airdrop(x.airdrop.to, lamports(x.airdrop.lamports));
      else if (x.wire) {
        const r = this.execute(x.wire);
        Object.assign(x, { meta: r.meta, err: r.err });
      }
    }
  }

  /** getSignaturesForAddress: newest first, `before`/`until` exclusive, at `commitment` (confirmed or finalized). */
  signaturesForAddress(addr: string, opts: { before?: string; until?: string; limit?: number; commitment?: Commitment } = {}) {
    const commitment = opts.commitment ?? 'finalized';
    if (commitment === 'processed') throw new ChainRpcError(-32602, 'Method does not support commitment below `confirmed`');
    const limit = opts.limit ?? 1000;
    if (limit < 1 || limit > 1000) throw new ChainRpcError(-32602, 'Invalid limit; max 1000');
    const list = this.entries.filter((e) => this.visible(e, commitment) && e.accountKeys.includes(addr)).reverse();
    let start = 0;
    if (opts.before) {
      const i = list.findIndex((e) => e.signature === opts.before);
      start = i >= 0 ? i + 1 : list.length;
    }
    const out = [];
    for (const e of list.slice(start)) {
      if (opts.until && e.signature === opts.until) break;
      out.push({
        signature: e.signature,
        slot: e.slot,
        err: e.err,
        memo: null,
        blockTime: e.blockTime,
        confirmationStatus: e.slot <= this.slot('finalized') ? 'finalized' : 'confirmed',
      });
      if (out.length >= limit) break;
    }
    return out;
  }

  /** getTransaction: null unless visible at `commitment`; `json` or `base64` encoding. */
  transaction(signature: string, opts: { commitment?: Commitment; encoding?: string; maxSupportedTransactionVersion?: number } = {}) {
    const commitment = opts.commitment ?? 'finalized';
    if (commitment === 'processed') throw new ChainRpcError(-32602, 'Method does not support commitment below `confirmed`');
    const e = this.bySignature.get(signature);
    if (!this.visible(e, commitment)) return null;
    if (e.version === 0 && opts.maxSupportedTransactionVersion === undefined) {
      throw new ChainRpcError(-32015, 'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0');
    }
    const encoding = opts.encoding ?? 'json';
    const transaction =
      encoding === 'base64'
        ? [Buffer.from(e.wire ?? new Uint8Array()).toString('base64'), 'base64']
        : encoding === 'json'
          ? { signatures: this.signaturesOf(e), message: e.message }
          : (() => {
              throw new ChainRpcError(-32602, `unsupported encoding ${encoding}`);
            })();
    return { slot: e.slot, blockTime: e.blockTime, meta: e.meta, transaction, version: e.version };
  }

  private signaturesOf(e: Entry): string[] {
    const tx = getTransactionDecoder().decode(e.wire ?? new Uint8Array()) as Transaction;
    return Object.values(tx.signatures).map((s) => (s ? b58.decode(s as Uint8Array) : '1'.repeat(64)));
  }

  /** getSignatureStatuses. */
  signatureStatuses(signatures: string[]) {
    return signatures.map((s) => {
      const e = this.bySignature.get(s);
      if (!e || e.dropped || e.kind !== 'transaction') return null;
      const fin = e.slot <= this.slot('finalized');
      const conf = e.slot <= this.slot('confirmed');
      return { slot: e.slot, confirmations: fin ? null : Math.max(0, this.head - e.slot), err: e.err, status: e.err ? { Err: e.err } : { Ok: null }, confirmationStatus: fin ? 'finalized' : conf ? 'confirmed' : 'processed' };
    });
  }

  /** Lamports of `addr` (current state). */
  balance(addr: string): bigint {
    return this.svm.getBalance(address(addr)) ?? 0n;
  }

  /** getTokenAccountBalance: throws -32602 for an account that is not a token account. */
  tokenAccountBalance(addr: string) {
    const t = tokenInfo(this.svm, addr);
    if (!t) throw new ChainRpcError(-32602, 'Invalid param: not a Token account');
    return uiAmount(t.amount, t.decimals);
  }

  /** The SVM itself (tools build transactions against it, e.g. the rent of a mint). */
  get runtime(): LiteSVM {
    return this.svm;
  }

  /** A 32-byte address from base58 (validates). */
  static addressBytes(a: string): Uint8Array {
    return new Uint8Array(b58enc.encode(a));
  }
}
