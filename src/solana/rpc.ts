/** The Solana JSON-RPC calls of the watcher and sweeper (@solana/kit); every call has a deadline. */
import { address, createSolanaRpc, signature as toSignature, type Base64EncodedWireTransaction } from '@solana/kit';
import type { RpcTransaction } from '../domain/solana';

export const SOLANA_RPC_TIMEOUT_MS = 8_000;

type Rpc = ReturnType<typeof createSolanaRpc>;
const clients = new Map<string, Rpc>();

function client(url: string): Rpc {
  let c = clients.get(url);
  if (!c) {
    c = createSolanaRpc(url);
    clients.set(url, c);
  }
  return c;
}

const deadline = () => ({ abortSignal: AbortSignal.timeout(SOLANA_RPC_TIMEOUT_MS) });

export interface SignatureInfo {
  signature: string;
  slot: bigint;
  err: unknown;
  confirmationStatus: 'processed' | 'confirmed' | 'finalized' | null;
}

export interface SolanaRpc {
  getSlot(commitment: 'confirmed' | 'finalized'): Promise<bigint>;
  /** Newer than `until` at `confirmed`, newest first. */
  getSignaturesSince(addr: string, until: string | null): Promise<SignatureInfo[]>;
  getTransaction(sig: string, commitment: 'confirmed' | 'finalized'): Promise<RpcTransaction | null>;
  getBalance(addr: string): Promise<bigint>;
  /** Base units; null when the account does not exist (yet). */
  getTokenAccountAmount(addr: string): Promise<bigint | null>;
  getLatestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: bigint }>;
  getBlockHeight(): Promise<bigint>;
  /** Preflight on; returns the signature. */
  sendTransaction(wireBase64: string): Promise<string>;
}

export function solanaRpc(url: string): SolanaRpc {
  const rpc = client(url);
  return {
    async getSlot(commitment) {
      return rpc.getSlot({ commitment }).send(deadline());
    },
    async getSignaturesSince(addr, until) {
      const out: SignatureInfo[] = [];
      let before: string | undefined;
      for (;;) {
        const page = await rpc
          .getSignaturesForAddress(address(addr), {
            commitment: 'confirmed',
            limit: 1000,
            ...(until ? { until: toSignature(until) } : {}),
            ...(before ? { before: toSignature(before) } : {}),
          })
          .send(deadline());
        for (const s of page) out.push({ signature: s.signature, slot: s.slot, err: s.err, confirmationStatus: s.confirmationStatus ?? null });
        if (page.length < 1000) return out;
        before = page[page.length - 1].signature;
      }
    },
    async getTransaction(sig, commitment) {
      const tx = await rpc.getTransaction(toSignature(sig), { commitment, encoding: 'json', maxSupportedTransactionVersion: 0 }).send(deadline());
      return (tx as unknown as RpcTransaction | null) ?? null;
    },
    async getBalance(addr) {
      return (await rpc.getBalance(address(addr), { commitment: 'confirmed' }).send(deadline())).value;
    },
    async getTokenAccountAmount(addr) {
      try {
        return BigInt((await rpc.getTokenAccountBalance(address(addr), { commitment: 'confirmed' }).send(deadline())).value.amount);
      } catch (err) {
        // -32602: not a token account (not created yet: nothing arrived)
        if (String((err as Error).message).includes('-32602') || (err as { context?: { __code?: number } }).context?.__code === -32602) return null;
        throw err;
      }
    },
    async getLatestBlockhash() {
      const v = (await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send(deadline())).value;
      return { blockhash: v.blockhash, lastValidBlockHeight: v.lastValidBlockHeight };
    },
    async getBlockHeight() {
      return rpc.getBlockHeight({ commitment: 'confirmed' }).send(deadline());
    },
    async sendTransaction(wireBase64) {
      return rpc.sendTransaction(wireBase64 as Base64EncodedWireTransaction, { encoding: 'base64', preflightCommitment: 'confirmed' }).send(deadline());
    },
  };
}
