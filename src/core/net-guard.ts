import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Environment } from '../db/schema';

/**
 * Outbound network guard for webhook deliveries: the rules and ranges are in docs/security.md
 * "Webhook destinations". Every address a name resolves to must be allowed, and the socket connects
 * to exactly the checked addresses (no DNS rebinding); redirects are never followed.
 */

/** Compared lower-case, trailing dot removed. */
export const METADATA_HOSTNAMES: readonly string[] = ['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal'];
const INTERNAL_SUFFIXES = ['.internal', '.local', '.localdomain', '.home.arpa'];

export interface NetPolicy {
  allowLoopback: boolean;
}

export const policyFor = (environment: Environment): NetPolicy => ({ allowLoopback: environment === 'sandbox' });

/** A destination the guard refuses; `reason` is safe to show to the integrator (no secrets). */
export class RefusedDestinationError extends Error {
  readonly code = 'EREFUSEDDESTINATION';
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'RefusedDestinationError';
  }
}

/** Why `address` is refused under `policy` (safe to show), or null; unparseable input is refused. */
export function addressRefusal(address: string, policy: NetPolicy): string | null {
  const text = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(text)) return `${text} is not an IP address`;
  let ip = ipaddr.parse(text);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const range = ip.range();
  if (range === 'unicast') return null;
  if (range === 'loopback' && policy.allowLoopback) return null;
  const label: Record<string, string> = {
    loopback: 'a loopback address',
    private: 'a private address',
    carrierGradeNat: 'a carrier-grade NAT address',
    linkLocal: 'a link-local address (cloud metadata lives here)',
    uniqueLocal: 'a unique-local address',
    unspecified: 'the unspecified address',
  };
  return `${text} is ${label[range] ?? `not a public address (${range})`}`;
}

export function hostnameRefusal(hostname: string, policy: NetPolicy): string | null {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  if (ipaddr.isValid(h.replace(/^\[|\]$/g, ''))) return addressRefusal(h, policy);
  if (h === 'localhost' || h.endsWith('.localhost')) return policy.allowLoopback ? null : `${h} is the loopback interface`;
  if (METADATA_HOSTNAMES.includes(h)) return `${h} is a cloud metadata service`;
  if (INTERNAL_SUFFIXES.some((s) => h.endsWith(s))) return `${h} is an internal host name`;
  if (!h.includes('.')) return `${h} is not a public host name`;
  return null;
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (err, addrs) => (err ? reject(err) : resolve(addrs))));

/** Checks a host and every address it resolves to (empty for an IP literal). Throws {@link RefusedDestinationError}; DNS errors propagate. */
export async function checkHost(hostname: string, policy: NetPolicy, resolve: Resolver = systemResolver): Promise<LookupAddress[]> {
  const byName = hostnameRefusal(hostname, policy);
  if (byName) throw new RefusedDestinationError(byName);
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(bare)) return [];
  const addrs = await resolve(bare);
  if (addrs.length === 0) throw Object.assign(new Error(`${bare} has no address`), { code: 'ENOTFOUND' });
  for (const a of addrs) {
    const why = addressRefusal(a.address, policy);
    if (why) throw new RefusedDestinationError(`${bare} resolves to ${why}`);
  }
  return addrs;
}

/**
 * Registration-time check of a webhook URL. A name that does not resolve within `timeoutMs` is
 * accepted: every delivery checks again.
 */
export async function checkWebhookDestination(
  url: string,
  environment: Environment,
  opts: { resolve?: Resolver; timeoutMs?: number } = {},
): Promise<void> {
  const { hostname } = new URL(url);
  const policy = policyFor(environment);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((r) => {
    timer = setTimeout(() => r('timeout'), opts.timeoutMs ?? 3000);
  });
  try {
    await Promise.race([checkHost(hostname, policy, opts.resolve), timeout]);
  } catch (err) {
    if (err instanceof RefusedDestinationError) throw err;
  } finally {
    clearTimeout(timer);
  }
}

function guardedLookup(policy: NetPolicy, resolve: Resolver): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    checkHost(hostname, policy, resolve).then(
      (addrs) => (options.all ? callback(null, addrs) : callback(null, addrs[0].address, addrs[0].family)),
      (err) => callback(err),
    );
  }) as LookupFunction;
}

/**
 * POSTs `body` to `url` under the policy; returns the HTTP status (3xx as is, body discarded). Throws
 * {@link RefusedDestinationError}, else the network error (`TimeoutError` after `timeoutMs`).
 */
export async function guardedPost(
  url: string,
  opts: { environment: Environment; headers: Record<string, string>; body: string; timeoutMs: number; resolve?: Resolver },
): Promise<number> {
  const target = new URL(url);
  const policy = policyFor(opts.environment);
  const resolve = opts.resolve ?? systemResolver;
  // IP literals never reach `lookup`: judge them here.
  const byName = hostnameRefusal(target.hostname, policy);
  if (byName) throw new RefusedDestinationError(byName);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const signal = AbortSignal.timeout(opts.timeoutMs);
  return new Promise<number>((resolvePromise, reject) => {
    const req = send(
      target,
      {
        method: 'POST',
        headers: { ...opts.headers, 'Content-Length': String(Buffer.byteLength(opts.body)) },
        lookup: guardedLookup(policy, resolve),
        signal,
        agent: false,
      },
      (res: IncomingMessage) => {
        res.resume();
        res.on('error', () => {});
        resolvePromise(res.statusCode ?? 0);
      },
    );
    req.on('error', (err) => {
      reject(signal.aborted ? Object.assign(new Error('timeout'), { name: 'TimeoutError' }) : err);
    });
    req.end(opts.body);
  });
}
