import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  addressRefusal,
  checkHost,
  checkWebhookDestination,
  guardedPost,
  hostnameRefusal,
  RefusedDestinationError,
  type Resolver,
} from '../../src/core/net-guard';

/** docs/security.md: the address rules. */

const live = { allowLoopback: false };
const sandbox = { allowLoopback: true };

const REFUSED: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.5.6.7', 'loopback'],
  ['::1', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.5.4', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['100.100.100.200', 'carrier-grade NAT'], // Alibaba Cloud metadata
  ['169.254.169.254', 'link-local'], // AWS/GCP/Azure metadata
  ['fe80::1', 'link-local'],
  ['fc00::1', 'unique-local'],
  ['fd00:ec2::254', 'unique-local'], // AWS metadata over IPv6
  ['0.0.0.0', 'unspecified'],
  ['::', 'unspecified'],
  ['::ffff:127.0.0.1', 'loopback'], // IPv4-mapped forms are judged as the IPv4 address
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['64:ff9b::a00:1', 'rfc6052'], // NAT64 of 10.0.0.1
  ['2002:a00:1::', '6to4'],
  ['224.0.0.1', 'multicast'],
  ['255.255.255.255', 'broadcast'],
];

describe('addresses (happy): public unicast is allowed', () => {
  it.each(['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34'])('%s', (ip) => {
    expect(addressRefusal(ip, live)).toBeNull();
    expect(addressRefusal(ip, sandbox)).toBeNull();
  });
  it('the sandbox allows loopback (a local receiver)', () => {
    for (const ip of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) expect(addressRefusal(ip, sandbox)).toBeNull();
    expect(hostnameRefusal('localhost', sandbox)).toBeNull();
  });
});

describe('addresses (error): each refused class', () => {
  it.each(REFUSED)('%s is refused on live (%s)', (ip, kind) => {
    const why = addressRefusal(ip, live);
    expect(why).not.toBeNull();
    expect(why).toContain(kind);
  });
  it('the sandbox still refuses everything but loopback', () => {
    for (const [ip, kind] of REFUSED) {
      if (kind === 'loopback') continue;
      expect(addressRefusal(ip, sandbox), ip).not.toBeNull();
    }
  });
  it('metadata and internal host names are refused by name, also in the sandbox', () => {
    for (const h of ['metadata.google.internal', 'METADATA.GOOGLE.INTERNAL.', 'metadata.goog', 'metadata', 'instance-data', 'foo.internal', 'printer.local', 'intranet']) {
      expect(hostnameRefusal(h, live), h).not.toBeNull();
      expect(hostnameRefusal(h, sandbox), h).not.toBeNull();
    }
    expect(hostnameRefusal('localhost', live)).toContain('loopback');
    expect(hostnameRefusal('[::1]', live)).toContain('loopback');
    expect(hostnameRefusal('hooks.example.com', live)).toBeNull();
  });
});

describe('names that resolve to refused addresses (security)', () => {
  const resolver = (map: Record<string, string[]>): Resolver => async (h) =>
    (map[h] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('one refused answer among several refuses the name', async () => {
    const r = resolver({ 'hooks.example.com': ['93.184.216.34', '10.1.2.3'] });
    await expect(checkHost('hooks.example.com', live, r)).rejects.toThrow(/resolves to 10\.1\.2\.3 is a private address/);
    await expect(checkHost('hooks.example.com', live, resolver({ 'hooks.example.com': ['93.184.216.34'] }))).resolves.toHaveLength(1);
  });

  it('registration: a refused answer is refused; an unresolvable name is accepted (checked at delivery)', async () => {
    await expect(checkWebhookDestination('https://evil.example.com/h', 'live', { resolve: resolver({ 'evil.example.com': ['169.254.169.254'] }) })).rejects.toBeInstanceOf(RefusedDestinationError);
    await expect(checkWebhookDestination('https://nx.example.com/h', 'live', { resolve: async () => { throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' }); } })).resolves.toBeUndefined();
  });

  it('delivery: a DNS answer that changed to a private address since registration is refused before connecting', async () => {
    let answer = '93.184.216.34';
    const rebinding: Resolver = async () => [{ address: answer, family: 4 }];
    await checkWebhookDestination('http://rebind.example.com/h', 'live', { resolve: rebinding });
    answer = '127.0.0.1';
    await expect(
      guardedPost('http://rebind.example.com/h', { environment: 'live', headers: {}, body: '{}', timeoutMs: 2000, resolve: rebinding }),
    ).rejects.toBeInstanceOf(RefusedDestinationError);
  });

  it('delivery connects to exactly the checked address, and does not follow a redirect', async () => {
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(`${req.headers.host} ${req.url}`);
      res.writeHead(302, { Location: 'http://169.254.169.254/latest/meta-data/' }).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as AddressInfo;
    try {
      const resolve = resolver({ 'receiver.example.com': ['127.0.0.1'] });
      // sandbox: loopback allowed, so the named host reaches the local server through the guarded lookup
      const status = await guardedPost(`http://receiver.example.com:${port}/hooks`, { environment: 'sandbox', headers: {}, body: '{}', timeoutMs: 5000, resolve });
      expect(status).toBe(302);
      expect(hits).toEqual([`receiver.example.com:${port} /hooks`]);
      // live: the same name is refused, nothing is sent
      await expect(
        guardedPost(`http://receiver.example.com:${port}/hooks`, { environment: 'live', headers: {}, body: '{}', timeoutMs: 5000, resolve }),
      ).rejects.toThrow(/loopback/);
      await expect(guardedPost(`http://127.0.0.1:${port}/hooks`, { environment: 'live', headers: {}, body: '{}', timeoutMs: 5000 })).rejects.toThrow(/loopback/);
      expect(hits).toHaveLength(1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
