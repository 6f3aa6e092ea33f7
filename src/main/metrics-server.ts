import { timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { METRICS_CONTENT_TYPE, renderMetrics } from '../core/metrics/scrape';
import type { Db } from '../db/schema';

/** Options of {@link startMetricsServer}. */
export interface MetricsServerOptions {
  /** 0: a free one. */
  port: number;
  /** Default 0.0.0.0. */
  hostname?: string;
  db: Db;
  /** When set, `Authorization: Bearer <token>` is required (401 otherwise). */
  token?: string;
  /** A second Prometheus endpoint whose samples are appended (the SDK's); when down, ours are still served. */
  appendFrom?: string;
}

/**
 * The worker's `GET /metrics` (Prometheus text; other paths 404): this process's registry, then the
 * Temporal SDK's `temporal_*` metrics. Resolves once listening with the port and `close()`.
 */
export async function startMetricsServer(opts: MetricsServerOptions): Promise<{ port: number; close: () => Promise<void> }> {
  const appendFrom = opts.appendFrom;
  const extra = appendFrom
    ? async () => {
        try {
          const res = await fetch(appendFrom, { signal: AbortSignal.timeout(5_000) });
          if (!res.ok) return `# Temporal SDK metrics unavailable: HTTP ${res.status}\n`;
          return await res.text();
        } catch (err) {
          return `# Temporal SDK metrics unavailable: ${(err as Error).message}\n`;
        }
      }
    : undefined;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found: GET /metrics\n');
      return;
    }
    if (opts.token) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
      const given = Buffer.from(m?.[1] ?? '');
      const wanted = Buffer.from(opts.token);
      if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
        res.writeHead(401, { 'Content-Type': 'text/plain' }).end('GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>"\n');
        return;
      }
    }
    renderMetrics(opts.db, extra).then(
      (body) => res.writeHead(200, { 'Content-Type': METRICS_CONTENT_TYPE, 'Cache-Control': 'no-store' }).end(body),
      (err: Error) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`metrics unavailable: ${err.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.hostname ?? '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
