/**
 * `npm run listen -- --key sk_test_…`: a local event listener, like `stripe listen`
 * (docs/webhooks.md "Watching events locally"). It starts an HTTP receiver on 127.0.0.1 (a free
 * port unless `--port`), registers it as a webhook endpoint of the key's sandbox business on each
 * surface (Surface A `POST /webhooks` with `events: ["*"]`, Surface B with a secret of its own,
 * Surface C), verifies every delivery's signature with an independent verifier (Surfaces A and C:
 * Stripe's layout, checked by the `stripe` package; Surface B: GitHub's `sha256=` layout, checked
 * by `@octokit/webhooks-methods`), prints one line per event as it arrives, and deletes its
 * endpoints on Ctrl-C (SIGINT or SIGTERM).
 *
 * One line per event: `<time>  <surface>  <event type>  <object id> <status>  verified <event id>`;
 * a delivery whose signature does not verify is answered 400 and printed `SIGNATURE INVALID`.
 * `--json` prints each verified envelope as one JSON line instead.
 *
 * Options: `--key` (or env `KEY`; a `sk_test_` key: loopback receivers are a sandbox feature),
 * `--api` (or env `API`, default `http://localhost:3000`), `--surface a,b,c` (default all three),
 * `--port` (default 0: a free port), `--json`.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { verify as verifyGithubStyle } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import { LoopbackEndpoints } from './loopback-endpoints';

/** One surface the listener registers on: its sandbox base, how to register, how to verify. */
interface SurfaceListener {
  id: 'A' | 'B' | 'C';
  base: string;
  /** The body of `POST {base}/webhooks` for receiver `url`. */
  registration(url: string): Record<string, unknown>;
  /** Verifies one delivery; the secret is the one the registration returned or chose. */
  verify(secret: string, raw: string, headers: IncomingMessage['headers']): Promise<boolean>;
}

const stripe = new Stripe('sk_test_unused_by_signature_checks');

/** Stripe's `t=<unix>,v1=<hex>` layout (Surfaces A and C), five minutes' tolerance. */
async function verifyStripeLayout(secret: string, raw: string, headers: IncomingMessage['headers']): Promise<boolean> {
  const header = headers['service-signature'];
  if (typeof header !== 'string') return false;
  try {
    stripe.webhooks.constructEvent(raw, header, secret, 300);
    return true;
  } catch {
    return false;
  }
}

const B_SECRET = `listen_${randomBytes(24).toString('hex')}`;

const SURFACES: Record<'a' | 'b' | 'c', SurfaceListener> = {
  a: { id: 'A', base: '/sandbox/v1', registration: (url) => ({ url, events: ['*'] }), verify: verifyStripeLayout },
  b: {
    id: 'B',
    base: '/sandbox/claim/v1',
    registration: (url) => ({ url, events: ['*'], secret: B_SECRET }),
    async verify(secret, raw, headers) {
      const sig = headers['x-service-signature'];
      return typeof sig === 'string' && (await verifyGithubStyle(secret, raw, sig));
    },
  },
  c: { id: 'C', base: '/sandbox/guide/v1', registration: (url) => ({ url, events: ['*'] }), verify: verifyStripeLayout },
};

/** The object an envelope is about: Surfaces A and C wrap it in `data.object`, Surface B sends it as `data`. */
function objectOf(envelope: Record<string, any>): { id?: string; status?: string } {
  const data = envelope.data ?? {};
  return (data.object ?? data) as { id?: string; status?: string };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      key: { type: 'string' },
      api: { type: 'string' },
      surface: { type: 'string', default: 'a,b,c' },
      port: { type: 'string', default: '0' },
      json: { type: 'boolean', default: false },
    },
  });
  const key = values.key ?? process.env.KEY;
  const api = (values.api ?? process.env.API ?? 'http://localhost:3000').replace(/\/$/, '');
  if (!key || !key.startsWith('sk_test_')) {
    console.error('npm run listen needs a sandbox key: npm run listen -- --key sk_test_... (printed by npm run dev; also in .data/dev-credentials.json)');
    process.exit(2);
  }
  const chosen = values.surface.split(',').map((s) => s.trim().toLowerCase());
  for (const s of chosen) {
    if (!(s in SURFACES)) {
      console.error(`--surface takes a, b and/or c (comma-separated), not '${s}'`);
      process.exit(2);
    }
  }
  const surfaces = chosen.map((s) => SURFACES[s as 'a' | 'b' | 'c']);
  const secrets = new Map<string, string>();
  const seen = new Set<string>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const surface = surfaces.find((s) => req.url === `/${s.id.toLowerCase()}`);
        const secret = surface && secrets.get(surface.id);
        if (!surface || !secret || req.method !== 'POST') {
          res.writeHead(404).end();
          return;
        }
        const ok = await surface.verify(secret, raw, req.headers);
        const time = new Date().toISOString();
        if (!ok) {
          res.writeHead(400, { 'Content-Type': 'application/json' }).end('{"error":"signature"}');
          console.log(`${time}  ${surface.id}  SIGNATURE INVALID  (${raw.length} bytes answered 400)`);
          return;
        }
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"received":true}');
        let envelope: Record<string, any>;
        try {
          envelope = JSON.parse(raw);
        } catch {
          console.log(`${time}  ${surface.id}  verified, but the body is not JSON`);
          return;
        }
        // Delivery is at least once: a re-sent event is printed once, and said to be a re-send.
        const again = seen.has(`${surface.id}:${envelope.id}`);
        seen.add(`${surface.id}:${envelope.id}`);
        if (values.json) {
          console.log(JSON.stringify({ surface: surface.id, verified: true, redelivery: again, event: envelope }));
          return;
        }
        const obj = objectOf(envelope);
        console.log(`${time}  ${surface.id}  ${String(envelope.type).padEnd(28)}  ${obj.id ?? '-'} ${obj.status ?? ''}  verified ${envelope.id}${again ? ' (again)' : ''}`);
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(values.port), '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const endpoints = new LoopbackEndpoints(api, key);
  const stop = async (code: number) => {
    await endpoints.deleteAll();
    server.close();
    process.exit(code);
  };
  endpoints.deleteOnSignals(() => server.close(), 0);

  for (const s of surfaces) {
    const url = `http://127.0.0.1:${port}/${s.id.toLowerCase()}`;
    let res: Response;
    try {
      res = await fetch(`${api}${s.base}/webhooks`, { method: 'POST', headers: auth, body: JSON.stringify(s.registration(url)) });
    } catch (err) {
      console.error(`Cannot reach ${api} (${(err as Error).message}); is npm run dev running?`);
      await stop(1);
      return;
    }
    const body = (await res.json().catch(() => ({}))) as Record<string, any>;
    if (res.status !== 201) {
      console.error(`Surface ${s.id}: POST ${s.base}/webhooks answered ${res.status}: ${JSON.stringify(body)}`);
      await stop(1);
      return;
    }
    endpoints.add({ surface: s.id, base: s.base, id: body.id });
    secrets.set(s.id, s.id === 'B' ? B_SECRET : body.secret);
    console.log(`Surface ${s.id}: endpoint ${body.id} -> ${url}`);
  }
  console.log(`Ready: printing every event of this sandbox business, each signature verified (Ctrl-C deletes the endpoints).`);
}

await main();
