/**
 * The chaos run's HTTP client: every request is retried until it gets a definitive answer, as a
 * careful integrator would (network error, 502/503/504, 5xx, 409 idempotency_in_flight, 429), with
 * the same Idempotency-Key; and a chosen request has its connection cut mid-flight first (the
 * client aborts after a few milliseconds, not knowing whether the server applied it).
 */
import type { Rng } from './rng';

/** Counters shown in the chaos report. */
export interface ClientStats {
  requests: number;
  cut: number;
  retries: number;
  networkErrors: number;
  status5xx: number;
  inFlight409: number;
  replays: number;
  gaveUp: number;
  /** `METHOD path (last answer)` of each request given up, for the audit's detail. */
  gaveUpRequests: string[];
}

export function newStats(): ClientStats {
  return { requests: 0, cut: 0, retries: 0, networkErrors: 0, status5xx: 0, inFlight409: 0, replays: 0, gaveUp: 0, gaveUpRequests: [] };
}

/** A definitive answer (or `status: 0` when the client gave up after `deadlineMs`). */
export interface Answer {
  status: number;
  body: any;
  replayed: boolean;
  tries: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ChaosClient {
  constructor(
    readonly origin: string,
    readonly key: string,
    private readonly rng: Rng,
    readonly stats: ClientStats,
    private readonly prefix = '/sandbox/v1',
  ) {}

  withKey(key: string): ChaosClient {
    return new ChaosClient(this.origin, key, this.rng, this.stats, this.prefix);
  }

  /** The same client on another base path (e.g. `/sandbox/guide/v1` for Surface C). */
  withPrefix(prefix: string): ChaosClient {
    return new ChaosClient(this.origin, this.key, this.rng, this.stats, prefix);
  }

  /**
   * Sends until definitive. `cut`: the first try is aborted after 0-40 ms (the connection cut).
   * `idem`: the Idempotency-Key sent with every try.
   */
  async send(method: string, path: string, opts: { body?: unknown; idem?: string; cut?: boolean; deadlineMs?: number } = {}): Promise<Answer> {
    const deadline = Date.now() + (opts.deadlineMs ?? 300_000);
    const headers: Record<string, string> = { Authorization: `Bearer ${this.key}` };
    if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
    if (opts.idem) headers['Idempotency-Key'] = opts.idem;
    const payload = opts.body !== undefined ? JSON.stringify(opts.body) : undefined;
    let tries = 0;
    let backoff = 100;
    let last = 'no answer';
    let waitMs = 0;
    for (;;) {
      tries++;
      this.stats.requests++;
      if (tries > 1) this.stats.retries++;
      const ctl = new AbortController();
      const cutNow = opts.cut && tries === 1;
      const timer = setTimeout(() => ctl.abort(), cutNow ? this.rng.int(0, 40) : 30_000);
      try {
        const res = await fetch(`${this.origin}${this.prefix}${path}`, { method, headers, body: payload, signal: ctl.signal });
        const text = await res.text();
        clearTimeout(timer);
        let body: any = undefined;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = text;
        }
        const retryable =
          res.status >= 500 || res.status === 429 || (res.status === 409 && body?.error?.code === 'idempotency_in_flight');
        last = `${res.status}${body?.error?.code ? ` ${body.error.code}` : ''}`;
        // A 429 names when the key's window resets: a careful client waits that long, not less.
        waitMs = res.status === 429 ? Number(res.headers.get('retry-after') ?? '0') * 1000 : 0;
        if (res.status >= 500) this.stats.status5xx++;
        if (res.status === 409 && body?.error?.code === 'idempotency_in_flight') this.stats.inFlight409++;
        if (!retryable) {
          const replayed = res.headers.get('idempotent-replayed') === 'true';
          if (replayed) this.stats.replays++;
          return { status: res.status, body, replayed, tries };
        }
      } catch {
        clearTimeout(timer);
        last = cutNow ? 'cut' : 'network error';
        if (cutNow) this.stats.cut++;
        else this.stats.networkErrors++;
      }
      if (Date.now() > deadline) {
        this.stats.gaveUp++;
        this.stats.gaveUpRequests.push(`${method} ${this.prefix}${path} (${tries} tries, last ${last})`);
        return { status: 0, body: undefined, replayed: false, tries };
      }
      await sleep(Math.max(waitMs, backoff) + this.rng.int(0, backoff));
      backoff = Math.min(backoff * 2, 2000);
    }
  }
}
