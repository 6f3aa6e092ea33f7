import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a webhook receiver got, and what it answered. */
export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  /** The raw body, as signed. */
  raw: string;
  /** The body parsed as JSON. */
  body: any;
  /** The HTTP status it answered. */
  answered: number;
}

/** A local webhook receiver (see {@link webhookReceiver}). */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hooks`, accepted as a sandbox endpoint URL. */
  url: string;
  /** Every request, in arrival order. */
  received: ReceivedDelivery[];
  /** `up: false` answers 503 (an outage) until set back to true. */
  state: { up: boolean };
  close(): Promise<void>;
}

/** Starts a local webhook receiver on 127.0.0.1 and a free port: 200 while `state.up`, else 503. */
export async function webhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const state = { up: true };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const status = state.up ? 200 : 503;
      received.push({ headers: req.headers, raw, body: JSON.parse(raw), answered: status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    state,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export { waitFor } from './wait-for';
