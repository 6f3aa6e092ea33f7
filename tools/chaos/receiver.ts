/**
 * The chaos run's webhook receiver: a local HTTP server registered as a sandbox webhook endpoint
 * (http to 127.0.0.1 is allowed in the sandbox). It verifies each signature, records every
 * request (event id, time, the status it answered), and can be made to fail for a while: then it
 * answers 503 or drops the connection, at random.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Rng } from './rng';

/** One request the receiver got. */
export interface Hit {
  eventId: string;
  type: string;
  at: number;
  /** What it answered: 200, 503, 400 (bad signature) or 0 (connection dropped). */
  answered: number;
}

export interface Receiver {
  url: string;
  hits: Hit[];
  secret: string;
  failing: boolean;
  /** When it last stopped failing (ms since epoch), or 0. */
  recoveredAt: number;
  badSignatures: number;
  setFailing(on: boolean): void;
  close(): Promise<void>;
}

function verify(raw: string, header: string, secret: string): boolean {
  const parts = Object.fromEntries(header.split(',').map((kv) => kv.split('=') as [string, string]));
  if (!parts.t || !parts.v1) return false;
  const want = createHmac('sha256', secret).update(`${parts.t}.${raw}`).digest('hex');
  return want.length === parts.v1.length && timingSafeEqual(Buffer.from(want), Buffer.from(parts.v1));
}

export async function startReceiver(rng: Rng): Promise<Receiver> {
  const state: Receiver = {
    url: '',
    hits: [],
    secret: '',
    failing: false,
    recoveredAt: 0,
    badSignatures: 0,
    setFailing(on) {
      if (state.failing && !on) state.recoveredAt = Date.now();
      state.failing = on;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      let event: { id?: string; type?: string } = {};
      try {
        event = JSON.parse(raw);
      } catch {
        // recorded with an empty id
      }
      const hit: Hit = { eventId: String(event.id ?? req.headers['service-event-id'] ?? ''), type: String(event.type ?? ''), at: Date.now(), answered: 200 };
      if (state.failing) {
        if (rng.chance(0.3)) {
          hit.answered = 0;
          state.hits.push(hit);
          req.socket.destroy();
          return;
        }
        hit.answered = 503;
      } else if (!verify(raw, String(req.headers['service-signature'] ?? ''), state.secret)) {
        state.badSignatures++;
        hit.answered = 400;
      }
      state.hits.push(hit);
      res.writeHead(hit.answered).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  state.url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/hooks`;
  return state;
}
