/**
 * The test chain's JSON-RPC over HTTP (Solana's JSON-RPC 2.0 API, the methods the watcher and the
 * sweeper use): getSignaturesForAddress, getTransaction, getSignatureStatuses, getSlot,
 * getBlockHeight, getLatestBlockhash, sendTransaction, getTokenAccountBalance, getBalance,
 * getHealth. Listens on 127.0.0.1, port 0 unless told. Answers are checked against @solana/kit's
 * RPC client (test/unit/solana-test-chain.test.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getBase58Encoder } from '@solana/kit';
import { ChainRpcError, type Commitment, type TestChain } from './chain';

/** A running RPC server. */
export interface ChainRpcServer {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

type Params = unknown[];
const cfg = (p: Params, i: number) => ((p[i] ?? {}) as Record<string, unknown>);
const commitmentOf = (c: Record<string, unknown>, dflt: Commitment = 'finalized') => (c.commitment as Commitment | undefined) ?? dflt;

/** Answers one JSON-RPC call (throws ChainRpcError for the node's errors). */
export function handleRpc(chain: TestChain, method: string, params: Params): unknown {
  const ctx = (c: Record<string, unknown>) => ({ context: { slot: chain.slot(commitmentOf(c)), apiVersion: '2.2.0' } });
  switch (method) {
    case 'getHealth':
      return 'ok';
    case 'getSlot':
    case 'getBlockHeight':
      return chain.slot(commitmentOf(cfg(params, 0)));
    case 'getLatestBlockhash':
      return { ...ctx(cfg(params, 0)), value: chain.latestBlockhash() };
    case 'getBalance':
      return { ...ctx(cfg(params, 1)), value: Number(chain.balance(String(params[0]))) };
    case 'getTokenAccountBalance':
      return { ...ctx(cfg(params, 1)), value: chain.tokenAccountBalance(String(params[0])) };
    case 'getSignaturesForAddress': {
      const c = cfg(params, 1);
      return chain.signaturesForAddress(String(params[0]), {
        before: c.before as string | undefined,
        until: c.until as string | undefined,
        limit: c.limit as number | undefined,
        commitment: commitmentOf(c),
      });
    }
    case 'getTransaction': {
      const c = cfg(params, 1);
      return chain.transaction(String(params[0]), {
        commitment: commitmentOf(c),
        encoding: c.encoding as string | undefined,
        maxSupportedTransactionVersion: c.maxSupportedTransactionVersion as number | undefined,
      });
    }
    case 'getSignatureStatuses':
      return { ...ctx({ commitment: 'processed' }), value: chain.signatureStatuses(params[0] as string[]) };
    case 'sendTransaction': {
      const c = cfg(params, 1);
      const data = String(params[0]);
      const wire = (c.encoding ?? 'base58') === 'base64' ? new Uint8Array(Buffer.from(data, 'base64')) : new Uint8Array(getBase58Encoder().encode(data));
      return chain.send(wire, { skipPreflight: c.skipPreflight === true });
    }
    default:
      throw new ChainRpcError(-32601, 'Method not found');
  }
}

/**
 * Serves `chain` over HTTP. `intercept` (chaos, tests) may delay a call or fail it: return
 * `{ status }` to answer that HTTP status instead, or nothing to answer normally; `transform` may
 * rewrite a result.
 */
export async function startChainRpc(
  chain: TestChain,
  opts: {
    port?: number;
    intercept?: (method: string) => Promise<{ status: number } | undefined> | { status: number } | undefined;
    /** Rewrites a result before it is sent (chaos: e.g. a list answered in another order). */
    transform?: (method: string, result: unknown) => unknown;
  } = {},
): Promise<ChainRpcServer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        let body: { id?: unknown; method?: string; params?: Params };
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
          return;
        }
        const method = String(body.method);
        const answer = await opts.intercept?.(method);
        if (answer) {
          res.writeHead(answer.status, { 'content-type': 'text/plain' }).end('unavailable');
          return;
        }
        let out: unknown;
        try {
          const result = handleRpc(chain, method, body.params ?? []);
          out = { jsonrpc: '2.0', id: body.id ?? null, result: opts.transform ? opts.transform(method, result) : result };
        } catch (err) {
          const code = err instanceof ChainRpcError ? err.code : -32603;
          out = { jsonrpc: '2.0', id: body.id ?? null, error: { code, message: (err as Error).message } };
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
