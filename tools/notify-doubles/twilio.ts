/**
 * A Twilio-shaped Programmable Messaging API (docs/notifications.md "Test doubles"), spoken to by
 * the official `twilio` client: `POST /2010-04-01/Accounts/{AccountSid}/Messages.json` (form
 * parameters To, From | MessagingServiceSid, Body, StatusCallback; HTTP Basic auth with the account
 * SID and auth token) answers 201 with a Message resource in Twilio's JSON shape, and `GET` of the
 * same path lists Messages (filters To, From, DateSent) in Twilio's page shape. Errors are Twilio's
 * `{code, message, more_info, status}`: 401 code 20003 for bad credentials, 400 code 21610 for an
 * unsubscribed recipient (a magic number, or one that answered STOP), 400 code 21211 for a bad To.
 *
 * After accepting, it POSTs the status callbacks to the message's StatusCallback as Twilio does
 * (form body AccountSid, ApiVersion, From, MessageSid, MessageStatus, SmsSid, SmsStatus, To, and
 * ErrorCode when undelivered/failed), signed with X-Twilio-Signature = base64 HMAC-SHA1 (auth
 * token) of the URL followed by each POST parameter name and value, sorted by name. Outcomes by
 * the magic numbers of magic.ts. `inbound()` posts a signed inbound SMS (STOP sets OptOutType).
 * Chaos options fail calls, time them out, duplicate and reorder callbacks.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { phoneOutcome } from './magic';
import { headersOf, recorder } from './recorder';

/** A message the double holds. */
export interface TwilioMessage {
  sid: string;
  to: string;
  from: string;
  body: string;
  status: string;
  errorCode: number | null;
  statusCallback: string | null;
  dateCreated: Date;
  dateSent: Date | null;
}

/** Chaos knobs (tools/chaos/notify.ts). */
export interface TwilioFaults {
  /** Share of creates answered 500 without creating. */
  failRate?: number;
  /** Share of creates that create, then answer only after `delayMs` (the client times out). */
  timeoutRate?: number;
  /** Send each callback twice. */
  duplicateCallbacks?: boolean;
  /** Send the callbacks of a message in reverse order. */
  reorderCallbacks?: boolean;
  /** Send no status callbacks at all (lost callbacks). */
  dropCallbacks?: boolean;
}

/** A running Twilio double. */
export interface TwilioDouble {
  url: string;
  accountSid: string;
  authToken: string;
  from: string;
  messages: TwilioMessage[];
  /** Callbacks made: URL, params, the HTTP status our service answered. */
  callbacks: { url: string; params: Record<string, string>; status: number }[];
  faults: TwilioFaults;
  /** Posts an inbound SMS from `from` to `url` (our /hooks/twilio/inbound), signed; returns the answer's status. */
  inbound(url: string, from: string, body: string): Promise<number>;
  /** Resolves when no callback is pending. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** X-Twilio-Signature of a POST to `url` with `params` (Twilio's documented algorithm). */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, k) => acc + k + params[k], url);
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf8')).digest('base64');
}

const rfc2822 = (d: Date | null) => (d ? d.toUTCString().replace('GMT', '+0000') : null);

function resource(accountSid: string, m: TwilioMessage) {
  const uri = `/2010-04-01/Accounts/${accountSid}/Messages/${m.sid}.json`;
  return {
    account_sid: accountSid,
    api_version: '2010-04-01',
    body: m.body,
    date_created: rfc2822(m.dateCreated),
    date_sent: rfc2822(m.dateSent),
    date_updated: rfc2822(new Date()),
    direction: 'outbound-api',
    error_code: m.errorCode,
    error_message: null,
    from: m.from,
    messaging_service_sid: null,
    num_media: '0',
    num_segments: '1',
    price: null,
    price_unit: 'USD',
    sid: m.sid,
    status: m.status,
    subresource_uris: { media: `/2010-04-01/Accounts/${accountSid}/Messages/${m.sid}/Media.json` },
    to: m.to,
    uri,
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the Twilio double on 127.0.0.1 (port 0). `delayMs`: how long a timed-out create is held. */
export async function startTwilioDouble(opts: { dir?: string; delayMs?: number; callbackDelayMs?: number; faults?: TwilioFaults } = {}): Promise<TwilioDouble> {
  const accountSid = `AC${randomBytes(16).toString('hex')}`;
  const authToken = randomBytes(16).toString('hex');
  const from = '+15005550006';
  const messages: TwilioMessage[] = [];
  const callbacks: TwilioDouble['callbacks'] = [];
  const optedOut = new Set<string>();
  const faults: TwilioFaults = { ...opts.faults };
  const record = recorder(opts.dir, 'twilio');
  let pending = 0;

  const post = async (url: string, params: Record<string, string>, kind: string) => {
    const body = new URLSearchParams(params).toString();
    const headers = { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Twilio-Signature': twilioSignature(authToken, url, params), 'User-Agent': 'TwilioProxy/1.1' };
    let status = 0;
    let text = '';
    try {
      const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(15_000) });
      status = res.status;
      text = await res.text();
    } catch (err) {
      text = (err as Error).message;
    }
    callbacks.push({ url, params, status });
    record({ kind, method: 'POST', url, headers, body, status, response: text });
    return status;
  };

  const scheduleCallbacks = (m: TwilioMessage, outcome: string) => {
    if (!m.statusCallback || faults.dropCallbacks) return;
    const base = { AccountSid: accountSid, ApiVersion: '2010-04-01', From: m.from, MessageSid: m.sid, SmsSid: m.sid, To: m.to };
    const steps: Record<string, string>[] = [{ ...base, MessageStatus: 'sent', SmsStatus: 'sent' }];
    if (outcome === 'undelivered_30003') steps.push({ ...base, MessageStatus: 'undelivered', SmsStatus: 'undelivered', ErrorCode: '30003' });
    else steps.push({ ...base, MessageStatus: 'delivered', SmsStatus: 'delivered' });
    let seq = faults.reorderCallbacks ? [...steps].reverse() : steps;
    if (faults.duplicateCallbacks) seq = seq.flatMap((s) => [s, s]);
    pending++;
    void (async () => {
      for (const p of seq) {
        await new Promise((r) => setTimeout(r, opts.callbackDelayMs ?? 50));
        m.status = p.MessageStatus!;
        if (p.ErrorCode) m.errorCode = Number(p.ErrorCode);
        await post(m.statusCallback as string, p, `callback-${p.MessageStatus}`);
      }
    })().finally(() => pending--);
  };

  const send = (res: ServerResponse, status: number, json: unknown) => {
    const text = JSON.stringify(json);
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(text);
    return text;
  };
  const error = (status: number, code: number, message: string) => ({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const x = { kind: 'request', method: req.method ?? '', url: url.pathname + url.search, headers: headersOf(req.headers), body };
      const reply = (status: number, json: unknown) => record({ ...x, status, response: send(res, status, json) });
      const auth = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
      if (auth !== `${accountSid}:${authToken}`) return reply(401, error(401, 20003, 'Authenticate'));
      const path = `/2010-04-01/Accounts/${accountSid}/Messages.json`;
      if (url.pathname !== path) return reply(404, error(404, 20404, `The requested resource ${url.pathname} was not found`));
      if (req.method === 'GET') {
        const to = url.searchParams.get('To');
        const list = messages.filter((m) => !to || m.to === to).slice().reverse();
        const pageSize = Number(url.searchParams.get('PageSize') ?? 50);
        return reply(200, {
          end: Math.max(0, Math.min(pageSize, list.length) - 1),
          first_page_uri: `${path}?PageSize=${pageSize}&Page=0`,
          messages: list.slice(0, pageSize).map((m) => resource(accountSid, m)),
          next_page_uri: null,
          page: 0,
          page_size: pageSize,
          previous_page_uri: null,
          start: 0,
          uri: url.pathname + url.search,
        });
      }
      const p = Object.fromEntries(new URLSearchParams(body).entries());
      if (!p.To || !/^\+[1-9]\d{6,14}$/.test(p.To)) return reply(400, error(400, 21211, `The 'To' number ${p.To ?? ''} is not a valid phone number.`));
      if (!p.Body) return reply(400, error(400, 21602, 'Message body is required.'));
      const outcome = phoneOutcome(p.To);
      if (outcome === 'failed_21610' || optedOut.has(p.To)) return reply(400, error(400, 21610, 'Attempt to send to unsubscribed recipient'));
      if (faults.failRate && Math.random() < faults.failRate) return reply(500, error(500, 20500, 'Internal Server Error'));
      const m: TwilioMessage = {
        sid: `SM${randomBytes(16).toString('hex')}`,
        to: p.To,
        from: p.From ?? from,
        body: p.Body,
        status: 'queued',
        errorCode: null,
        statusCallback: p.StatusCallback ?? null,
        dateCreated: new Date(),
        dateSent: new Date(),
      };
      messages.push(m);
      scheduleCallbacks(m, outcome);
      const hold = outcome === 'timeout_sent' || (faults.timeoutRate && Math.random() < faults.timeoutRate);
      if (hold) await new Promise((r) => setTimeout(r, opts.delayMs ?? 15_000));
      if (!res.destroyed) reply(201, resource(accountSid, m));
    })().catch((err) => {
      if (!res.headersSent) send(res, 500, error(500, 20500, (err as Error).message));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    accountSid,
    authToken,
    from,
    messages,
    callbacks,
    faults,
    async inbound(url, number, body) {
      const word = body.trim().toUpperCase();
      const params: Record<string, string> = {
        AccountSid: accountSid,
        ApiVersion: '2010-04-01',
        Body: body,
        From: number,
        MessageSid: `SM${randomBytes(16).toString('hex')}`,
        NumMedia: '0',
        NumSegments: '1',
        SmsMessageSid: '',
        SmsSid: '',
        SmsStatus: 'received',
        To: from,
      };
      if (['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'].includes(word)) {
        params.OptOutType = 'STOP';
        optedOut.add(number);
      } else if (['START', 'UNSTOP', 'YES'].includes(word)) {
        params.OptOutType = 'START';
        optedOut.delete(number);
      }
      params.SmsMessageSid = params.MessageSid!;
      params.SmsSid = params.MessageSid!;
      return post(url, params, 'inbound');
    },
    async idle() {
      while (pending > 0) await new Promise((r) => setTimeout(r, 25));
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
