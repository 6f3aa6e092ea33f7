/**
 * The test payout partner (docs/rails.md "Test partner"): an HTTP server on 127.0.0.1 that speaks
 * the part of the Wise Platform API the partner rail uses, with the documented shapes, and sends
 * `transfers#state-change` webhooks signed with its own RSA key pair (X-Signature-SHA256: RSA-SHA256
 * over the body, base64), as the partner does. Like tools/test-bank, its outcomes follow magic
 * values: a word in the recipient account's holder name.
 *
 * Endpoints: GET /v2/profiles/{id}; POST /v1/accounts; POST /v3/profiles/{id}/quotes;
 * POST /v1/transfers (idempotent on customerTransactionId: a second create answers the first
 * transfer); POST /v3/profiles/{id}/transfers/{id}/payments (`BALANCE`); PUT /v1/transfers/{id}/cancel;
 * GET /v1/transfers/{id}. Every call needs `Authorization: Bearer <token>`.
 *
 * | word in the holder name | what happens after funding |
 * |---|---|
 * | (none) | processing, funds_converted, outgoing_payment_sent |
 * | `BOUNCE` | ... outgoing_payment_sent, bounced_back, funds_refunded |
 * | `REFUND` | ... outgoing_payment_sent, funds_refunded |
 * | `CANCEL` | processing, cancelled |
 * | `SILENT` | the states move, but no webhook is ever sent (only polling finds them) |
 * | `TWICE` | every webhook is delivered twice (the same delivery) |
 * | `SHUFFLE` | the webhooks are delivered in reverse order |
 * | `LATE` | each webhook is delivered `lateMs` after its state change |
 * | `TIMEOUT` | the first create of a transfer makes it, then never answers (the caller times out) |
 * | `FAILCREATE` | the first create answers 500 without making the transfer |
 * | `NOFUNDS` | funding answers REJECTED `transfer.insufficient_funds` |
 *
 * With `chaos` (tools/chaos/partner.ts) it also fails calls at random, and times out or fails a
 * create after making the transfer.
 *
 * With `logDir`, every request to it (method, path, headers, body, status, answer) and every
 * webhook it sends (headers, body, the answer) is written there as numbered JSON files, beside its
 * public key (`partner-public-key.pem`). Amounts are decimal strings computed with BigInt.
 */
import { createSign, generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** The partner's rates: units of the currency per 1 USD, 6 decimals (decimal strings). */
export const TEST_PARTNER_RATES: Readonly<Record<string, string>> = { MXN: '17.250000', BRL: '5.050000', GBP: '0.790000', INR: '83.200000', AUD: '1.530000', USD: '1.000000' };
/** The partner's fee on a transfer: 0.45 % of the source amount plus 0.30 (source currency). */
export const TEST_PARTNER_FEE = { percentBasisPoints: 45n, flatMinor: 30n };

/** One transfer as the partner keeps it. */
export interface TestPartnerTransfer {
  id: number;
  customerTransactionId: string;
  targetAccount: number;
  quoteUuid: string;
  status: string;
  history: string[];
  funded: boolean;
  holderName: string;
  reference: string;
  sourceCurrency: string;
  sourceValue: string;
  targetCurrency: string;
  targetValue: string;
  rate: string;
  created: string;
}

/** A running test partner. */
export interface TestPartner {
  url: string;
  /** Service configuration for it (RAIL_WISE_*). */
  env: Record<string, string>;
  publicKeyPem: string;
  /** Every transfer made, by id. */
  transfers(): TestPartnerTransfer[];
  /** Every webhook it sent: transfer id, state, delivery id, the HTTP status it got. */
  webhooks(): Array<{ transferId: number; state: string; deliveryId: string; status: number | null }>;
  /** Where webhooks go (an http URL), or a function that delivers one (tests call the app in process). */
  setWebhookTarget(target: string | ((req: { headers: Record<string, string>; body: string }) => Promise<number>)): void;
  /** Signs `body` with the partner's private key (tests forge and replay with it). */
  sign(body: string): string;
  stop(): Promise<void>;
}

/** Options of {@link startTestPartner}. */
export interface TestPartnerOptions {
  token?: string;
  profileId?: string;
  /** Milliseconds between two state changes of a transfer (default 150). */
  stepMs?: number;
  /** How long a `TIMEOUT` create hangs before the socket is dropped (default 20 s). */
  hangMs?: number;
  /** Delay of each `LATE` webhook (default 3 s). */
  lateMs?: number;
  logDir?: string;
  /**
   * Chaos (tools/chaos/partner.ts): `random` in [0, 1); each API call fails 503 before doing
   * anything with probability `failRate`; a create that makes its transfer then hangs (never
   * answers) with `hangRate`, or answers 503 after making it with `failAfterCreateRate`.
   */
  chaos?: { random: () => number; failRate: number; hangRate: number; failAfterCreateRate: number };
}

const LIFECYCLES: Array<[string, string[]]> = [
  ['BOUNCE', ['processing', 'funds_converted', 'outgoing_payment_sent', 'bounced_back', 'funds_refunded']],
  ['REFUND', ['processing', 'funds_converted', 'outgoing_payment_sent', 'funds_refunded']],
  ['CANCEL', ['processing', 'cancelled']],
];
const DEFAULT_LIFECYCLE = ['processing', 'funds_converted', 'outgoing_payment_sent'];

const has = (name: string, word: string) => name.toUpperCase().split(/[^A-Z]+/).includes(word);

/** `amount` (decimal string) in minor units of 2 decimals. */
function cents(amount: string): bigint {
  const [w, f = ''] = amount.split('.');
  return BigInt(w!) * 100n + BigInt((f + '00').slice(0, 2));
}
const decimal = (minor: bigint) => `${minor / 100n}.${String(minor % 100n).padStart(2, '0')}`;

/** Starts a test partner on 127.0.0.1 (a free port). */
export async function startTestPartner(options: TestPartnerOptions = {}): Promise<TestPartner> {
  const token = options.token ?? 'test-partner-token';
  const profileId = options.profileId ?? '4242';
  const stepMs = options.stepMs ?? 150;
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const sign = (body: string) => createSign('RSA-SHA256').update(body).sign(privateKey, 'base64');
  if (options.logDir) {
    mkdirSync(options.logDir, { recursive: true });
    writeFileSync(join(options.logDir, 'partner-public-key.pem'), publicKeyPem);
  }
  let logged = 0;
  const log = (kind: string, record: unknown) => {
    if (!options.logDir) return;
    logged++;
    writeFileSync(join(options.logDir, `${String(logged).padStart(4, '0')}-${kind}.json`), `${JSON.stringify(record, null, 2)}\n`);
  };

  const accounts = new Map<number, { id: number; accountHolderName: string; currency: string; type: string; details: Record<string, string> }>();
  const quotes = new Map<string, { id: string; sourceCurrency: string; targetCurrency: string; sourceAmount: string; targetAmount: string; rate: string; fee: string }>();
  const transfers = new Map<number, TestPartnerTransfer>();
  const byCustomerId = new Map<string, number>();
  const firstCreate = new Set<string>();
  const sent: Array<{ transferId: number; state: string; deliveryId: string; status: number | null }> = [];
  const timers = new Set<NodeJS.Timeout>();
  let nextId = 50_000_000;
  let target: string | ((req: { headers: Record<string, string>; body: string }) => Promise<number>) | null = null;

  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  async function deliver(t: TestPartnerTransfer, state: string, previous: string) {
    const body = JSON.stringify({
      data: { resource: { type: 'transfer', id: t.id, profile_id: Number(profileId), account_id: t.targetAccount }, current_state: state, previous_state: previous, occurred_at: new Date().toISOString() },
      subscription_id: '00000000-0000-4000-8000-00000000wise'.replace('wise', '0001'),
      event_type: 'transfers#state-change',
      schema_version: '2.0.0',
      sent_at: new Date().toISOString(),
    });
    const deliveryId = randomUUID();
    const headers = { 'content-type': 'application/json', 'x-signature-sha256': sign(body), 'x-delivery-id': deliveryId, 'x-test-notification': 'false' };
    const copies = has(t.holderName, 'TWICE') ? 2 : 1;
    for (let n = 0; n < copies; n++) {
      let status: number | null = null;
      try {
        if (typeof target === 'function') status = await target({ headers, body });
        else if (target) status = (await fetch(target, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) })).status;
      } catch {
        status = null;
      }
      sent.push({ transferId: t.id, state, deliveryId, status });
      log('webhook', { to: typeof target === 'string' ? target : 'in-process', headers, rawBody: body, body: JSON.parse(body), status });
    }
  }

  function move(t: TestPartnerTransfer) {
    const lifecycle = LIFECYCLES.find(([w]) => has(t.holderName, w))?.[1] ?? DEFAULT_LIFECYCLE;
    const changes: Array<[string, string]> = [];
    lifecycle.forEach((state, i) => {
      later(stepMs * (i + 1), () => {
        if (t.status === 'cancelled') return;
        const previous = t.status;
        t.status = state;
        t.history.push(state);
        changes.push([state, previous]);
        if (has(t.holderName, 'SILENT')) return;
        if (has(t.holderName, 'SHUFFLE')) {
          if (i === lifecycle.length - 1) for (const [s, p] of [...changes].reverse()) void deliver(t, s, p);
          return;
        }
        if (has(t.holderName, 'LATE')) later(options.lateMs ?? 3000, () => void deliver(t, state, previous));
        else void deliver(t, state, previous);
      });
    });
  }

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
    return { status, body };
  };
  const error = (res: ServerResponse, status: number, code: string, message: string, path?: string) => json(res, status, { errors: [{ code, message, path: path ?? null }] });

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string): Promise<{ status: number; body: unknown } | null> {
    const url = new URL(req.url ?? '/', 'http://partner');
    const path = url.pathname;
    if (req.headers.authorization !== `Bearer ${token}`) return error(res, 401, 'unauthorized', 'invalid token');
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return error(res, 400, 'invalid_json', 'body is not JSON');
    }
    if (options.chaos && options.chaos.random() < options.chaos.failRate) return error(res, 503, 'service_unavailable', 'chaos: try again');
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && (m = /^\/v2\/profiles\/(\d+)$/.exec(path))) {
      if (m[1] !== profileId) return error(res, 404, 'not_found', 'no such profile');
      return json(res, 200, { id: Number(profileId), type: 'BUSINESS', businessName: 'Payouts Test Ltd' });
    }
    if (req.method === 'POST' && path === '/v1/accounts') {
      const details = (body.details ?? {}) as Record<string, string>;
      const name = String(body.accountHolderName ?? '');
      const required: Record<string, string[]> = { mexican: ['clabe'], pix: ['pixKey', 'cpf'], sort_code: ['sortCode', 'accountNumber'], indian: ['ifscCode', 'accountNumber'], australian: ['bsbCode', 'accountNumber'] };
      const type = String(body.type ?? '');
      if (!required[type]) return error(res, 422, 'NOT_VALID', `account type ${type} is not supported`, 'type');
      if (name.trim().length < 2) return error(res, 422, 'NOT_VALID', 'Please enter the recipient full name', 'accountHolderName');
      for (const k of required[type]!) if (!details[k]) return error(res, 422, 'NOT_VALID', `${k} is required`, `details.${k}`);
      if (type === 'mexican' && !/^[0-9]{18}$/.test(details.clabe!)) return error(res, 422, 'NOT_VALID', 'Please specify a valid CLABE', 'details.clabe');
      const id = nextId++;
      accounts.set(id, { id, accountHolderName: name, currency: String(body.currency), type, details });
      return json(res, 200, { id, profile: Number(profileId), accountHolderName: name, currency: body.currency, country: null, type, details, active: true, ownedByCustomer: false });
    }
    if (req.method === 'POST' && (m = /^\/v3\/profiles\/(\d+)\/quotes$/.exec(path))) {
      const rate = TEST_PARTNER_RATES[String(body.targetCurrency)];
      const sourceRate = TEST_PARTNER_RATES[String(body.sourceCurrency)];
      if (!rate || !sourceRate || body.targetAmount === undefined) return error(res, 422, 'NOT_VALID', 'unsupported currency pair or amount', 'targetCurrency');
      const targetMinor = cents(String(body.targetAmount));
      // source = target / (rate / sourceRate), rounded up to the cent; fee on top, in the source currency.
      const num = targetMinor * BigInt(sourceRate.replace('.', ''));
      const den = BigInt(rate.replace('.', ''));
      const convertedMinor = (num + den - 1n) / den;
      const feeMinor = (convertedMinor * TEST_PARTNER_FEE.percentBasisPoints + 9_999n) / 10_000n + TEST_PARTNER_FEE.flatMinor;
      const q = { id: randomUUID(), sourceCurrency: String(body.sourceCurrency), targetCurrency: String(body.targetCurrency), sourceAmount: decimal(convertedMinor + feeMinor), targetAmount: decimal(targetMinor), rate, fee: decimal(feeMinor) };
      quotes.set(q.id, q);
      const text = `{"id":"${q.id}","sourceCurrency":"${q.sourceCurrency}","targetCurrency":"${q.targetCurrency}","sourceAmount":${q.sourceAmount},"targetAmount":${q.targetAmount},"rate":${q.rate},"rateType":"FIXED","payOut":"BANK_TRANSFER","status":"PENDING","profile":${profileId},"createdTime":"${new Date().toISOString()}","expirationTime":"${new Date(Date.now() + 1_800_000).toISOString()}","paymentOptions":[{"payIn":"BALANCE","payOut":"BANK_TRANSFER","disabled":false,"sourceAmount":${q.sourceAmount},"targetAmount":${q.targetAmount},"fee":{"transferwise":${q.fee},"payIn":0,"discount":0,"partner":0,"total":${q.fee}}}]}`;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(text);
      return { status: 200, body: JSON.parse(text) };
    }
    if (req.method === 'POST' && path === '/v1/transfers') {
      const ctid = String(body.customerTransactionId ?? '');
      if (!/^[0-9a-f-]{36}$/.test(ctid)) return error(res, 422, 'NOT_VALID', 'customerTransactionId must be a UUID', 'customerTransactionId');
      const existing = byCustomerId.get(ctid);
      if (existing !== undefined) return sendTransfer(res, 200, transfers.get(existing)!);
      const account = accounts.get(Number(body.targetAccount));
      const quote = quotes.get(String(body.quoteUuid));
      if (!account || !quote) return error(res, 422, 'NOT_VALID', 'unknown targetAccount or quoteUuid', account ? 'quoteUuid' : 'targetAccount');
      const first = !firstCreate.has(ctid);
      firstCreate.add(ctid);
      if (first && has(account.accountHolderName, 'FAILCREATE')) return error(res, 500, 'internal_error', 'try again');
      const t: TestPartnerTransfer = {
        id: nextId++,
        customerTransactionId: ctid,
        targetAccount: account.id,
        quoteUuid: quote.id,
        status: 'incoming_payment_waiting',
        history: ['incoming_payment_waiting'],
        funded: false,
        holderName: account.accountHolderName,
        reference: String((body.details as Record<string, unknown> | undefined)?.reference ?? ''),
        sourceCurrency: quote.sourceCurrency,
        sourceValue: quote.sourceAmount,
        targetCurrency: quote.targetCurrency,
        targetValue: quote.targetAmount,
        rate: quote.rate,
        created: new Date().toISOString(),
      };
      transfers.set(t.id, t);
      byCustomerId.set(ctid, t.id);
      const roll = options.chaos?.random() ?? 1;
      if (options.chaos && roll < options.chaos.hangRate) {
        later(options.hangMs ?? 20_000, () => res.destroy());
        return null;
      }
      if (options.chaos && roll < options.chaos.hangRate + options.chaos.failAfterCreateRate) return error(res, 503, 'service_unavailable', 'chaos: the transfer was made, the answer lost');
      if (first && has(account.accountHolderName, 'TIMEOUT')) {
        // The transfer is made; the answer never comes.
        later(options.hangMs ?? 20_000, () => res.destroy());
        return null;
      }
      return sendTransfer(res, 200, t);
    }
    if (req.method === 'POST' && (m = /^\/v3\/profiles\/(\d+)\/transfers\/(\d+)\/payments$/.exec(path))) {
      const t = transfers.get(Number(m[2]));
      if (!t) return error(res, 404, 'not_found', 'no such transfer');
      if (body.type !== 'BALANCE') return error(res, 422, 'NOT_VALID', 'type must be BALANCE', 'type');
      if (has(t.holderName, 'NOFUNDS')) return json(res, 200, { type: 'BALANCE', status: 'REJECTED', errorCode: 'transfer.insufficient_funds' });
      if (t.status === 'cancelled') return json(res, 200, { type: 'BALANCE', status: 'REJECTED', errorCode: 'transfer.cancelled' });
      if (!t.funded) {
        t.funded = true;
        move(t);
      }
      return json(res, 201, { type: 'BALANCE', status: 'COMPLETED', errorCode: null });
    }
    if (req.method === 'PUT' && (m = /^\/v1\/transfers\/(\d+)\/cancel$/.exec(path))) {
      const t = transfers.get(Number(m[1]));
      if (!t) return error(res, 404, 'not_found', 'no such transfer');
      if (t.funded && t.status !== 'incoming_payment_waiting') return error(res, 409, 'transfer.cancel.not_allowed', 'too late to cancel');
      t.status = 'cancelled';
      t.history.push('cancelled');
      return sendTransfer(res, 200, t);
    }
    if (req.method === 'GET' && (m = /^\/v1\/transfers\/(\d+)$/.exec(path))) {
      const t = transfers.get(Number(m[1]));
      if (!t) return error(res, 404, 'not_found', 'no such transfer');
      return sendTransfer(res, 200, t);
    }
    return error(res, 404, 'not_found', `no route ${req.method} ${path}`);
  }

  /** A transfer as the partner answers it: numbers written from their decimal strings (no float on the way). */
  function transferJson(t: TestPartnerTransfer): unknown {
    return JSON.parse(transferText(t));
  }
  function transferText(t: TestPartnerTransfer): string {
    const str = JSON.stringify;
    return `{"id":${t.id},"user":1,"targetAccount":${t.targetAccount},"quoteUuid":${str(t.quoteUuid)},"status":${str(t.status)},"reference":${str(t.reference)},"rate":${t.rate},"created":${str(t.created)},"business":${profileId},"details":{"reference":${str(t.reference)}},"hasActiveIssues":false,"sourceCurrency":${str(t.sourceCurrency)},"sourceValue":${t.sourceValue},"targetCurrency":${str(t.targetCurrency)},"targetValue":${t.targetValue},"customerTransactionId":${str(t.customerTransactionId)}}`;
  }
  /** Answers a transfer (see transferText). */
  const sendTransfer = (res: ServerResponse, status: number, t: TestPartnerTransfer) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(transferText(t));
    return { status, body: transferJson(t) };
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      handle(req, res, raw)
        .then((answer) => log('request', { method: req.method, path: req.url, headers: { ...req.headers, authorization: req.headers.authorization ? 'Bearer ***' : undefined }, body: raw ? JSON.parse(raw) : null, status: answer?.status ?? 'no answer (timeout)', answer: answer?.body ?? null }))
        .catch((err: unknown) => {
          if (!res.headersSent) error(res, 500, 'internal_error', String(err));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    env: { RAIL_WISE_API_URL: url, RAIL_WISE_API_TOKEN: token, RAIL_WISE_PROFILE_ID: profileId, RAIL_WISE_WEBHOOK_PUBLIC_KEY: publicKeyPem, RAIL_WISE_BALANCE_CURRENCY: 'USD' },
    publicKeyPem,
    transfers: () => [...transfers.values()],
    webhooks: () => [...sent],
    setWebhookTarget: (t) => {
      target = t;
    },
    sign,
    stop: async () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
