import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Environment } from '../db/schema';

/**
 * Outbound network guard for webhook deliveries (docs/security.md "Webhook destinations":
 * webhooks cannot be turned against the network they run in): the service POSTs only to public internet addresses.
 *
 * Rules:
 * - Only addresses that ipaddr.js classifies as global `unicast` are allowed. Refused: loopback
 *   (127.0.0.0/8, ::1), private (10/8, 172.16/12, 192.168/16), carrier-grade NAT (100.64/10, also
 *   Alibaba's 100.100.100.200 metadata address), link-local (169.254/16 with the
 *   169.254.169.254 metadata address, fe80::/10), unique-local fc00::/7 (AWS's fd00:ec2::254),
 *   unspecified (0.0.0.0/8, ::), broadcast, multicast, reserved and documentation ranges, and every
 *   IPv6 form that embeds an IPv4 address (IPv4-mapped ::ffff:a.b.c.d is judged as the IPv4 address
 *   it maps; NAT64, 6to4 and Teredo are refused outright).
 * - Cloud metadata and internal host names are refused by name before any lookup:
 *   `metadata.google.internal`, `metadata.goog`, `metadata`, `instance-data`, and any name under
 *   `.internal`, `.local`, `.localdomain`, `.home.arpa`, or a single-label name.
 * - The sandbox (only) allows loopback addresses and `localhost`, so integrators can test against a
 *   local receiver. Everything else refused on live is refused in the sandbox too.
 * - Every address a name resolves to must be allowed (one bad answer refuses the name), and the
 *   connection is made to exactly the addresses that were checked (a custom `lookup` on the socket),
 *   so a DNS answer that changes between the check and the connection cannot slip through.
 * - Redirects are never followed: a 3xx is returned as the attempt's status (a failed attempt).
 */

/** Host names refused by name (cloud metadata services). Compared lower-case, trailing dot removed. */
export const METADATA_HOSTNAMES: readonly string[] = ['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal'];
const INTERNAL_SUFFIXES = ['.internal', '.local', '.localdomain', '.home.arpa'];

/** Which destinations a request may reach: live allows public addresses only; sandbox adds loopback. */
export interface NetPolicy {
  allowLoopback: boolean;
}

/** The policy of an environment (sandbox: loopback allowed; live: public only). */
export const policyFor = (environment: Environment): NetPolicy => ({ allowLoopback: environment === 'sandbox' });

/** A destination the guard refuses; `reason` is safe to show to the integrator (no secrets). */
export class RefusedDestinationError extends Error {
  readonly code = 'EREFUSEDDESTINATION';
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'RefusedDestinationError';
  }
}

/**
 * Why an IP address is refused under `policy` (e.g. `10.0.0.1 is a private address`), or null when
 * it is allowed. Unparseable input is refused.
 */
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

/** Why a host name is refused by name under `policy`, or null (IP literals: {@link addressRefusal}). */
export function hostnameRefusal(hostname: string, policy: NetPolicy): string | null {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  if (ipaddr.isValid(h.replace(/^\[|\]$/g, ''))) return addressRefusal(h, policy);
  if (h === 'localhost' || h.endsWith('.localhost')) return policy.allowLoopback ? null : `${h} is the loopback interface`;
  if (METADATA_HOSTNAMES.includes(h)) return `${h} is a cloud metadata service`;
  if (INTERNAL_SUFFIXES.some((s) => h.endsWith(s))) return `${h} is an internal host name`;
  if (!h.includes('.')) return `${h} is not a public host name`;
  return null;
}

/** Resolves a host name to all its addresses (node:dns, the system resolver). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** The default {@link Resolver}: `dns.lookup` with `all` and `verbatim`. */
export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (err, addrs) => (err ? reject(err) : resolve(addrs))));

/**
 * Checks a host and every address it resolves to; returns the checked addresses (empty for an IP
 * literal, which needs no lookup). Throws {@link RefusedDestinationError}; DNS failures propagate
 * as node:dns errors (`ENOTFOUND`, ...).
 */
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
 * Registration-time check of a webhook URL (scheme already validated): refuses a host or any of its
 * current addresses under the environment's policy. A name that does not resolve (yet) is accepted:
 * every delivery checks again, and an unresolvable or refused address is then a failed attempt.
 * Resolution is given `timeoutMs` (default 3 s), then treated as unresolved.
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
    // unresolvable now: checked again at every delivery
  } finally {
    clearTimeout(timer);
  }
}

/** A socket `lookup` that hands the connection only addresses {@link checkHost} allowed. */
function guardedLookup(policy: NetPolicy, resolve: Resolver): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    checkHost(hostname, policy, resolve).then(
      (addrs) => (options.all ? callback(null, addrs) : callback(null, addrs[0].address, addrs[0].family)),
      (err) => callback(err),
    );
  }) as LookupFunction;
}

/**
 * POSTs `body` to `url` under the environment's policy and returns the HTTP status; redirects are
 * not followed (a 3xx is returned as is). The response body is discarded. Throws
 * {@link RefusedDestinationError} for a refused destination (checked before connecting, and on
 * the addresses the socket connects to), else the network error (`ECONNREFUSED`, timeout as
 * `TimeoutError` after `timeoutMs`).
 */
export async function guardedPost(
  url: string,
  opts: { environment: Environment; headers: Record<string, string>; body: string; timeoutMs: number; resolve?: Resolver },
): Promise<number> {
  const target = new URL(url);
  const policy = policyFor(opts.environment);
  const resolve = opts.resolve ?? systemResolver;
  // IP literals never reach `lookup`: judge them here. Names are judged by the lookup itself.
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
