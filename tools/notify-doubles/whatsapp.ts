/**
 * A WhatsApp Business Cloud API-shaped server (docs/notifications.md "Test doubles"):
 * `POST /{version}/{phone number id}/messages` with a Bearer token accepts template messages
 * (`type: "template"`, `template.name`, `template.language.code`, `components[].parameters[]`)
 * and answers `{messaging_product, contacts: [{input, wa_id}], messages: [{id: "wamid.…"}]}`;
 * errors are Graph API errors `{error: {message, type, code, error_data: {messaging_product,
 * details}, fbtrace_id}}` (190 bad token, 100 a non-template or unknown template, 132015 template
 * paused for its magic number). It then POSTs status webhooks to `webhookUrl` as Meta does:
 * `{object: "whatsapp_business_account", entry: [{id, changes: [{field: "messages", value:
 * {messaging_product, metadata, statuses: [{id, status, timestamp, recipient_id,
 * biz_opaque_callback_data, errors?}]}}]}]}`, signed `X-Hub-Signature-256: sha256=<hex HMAC-SHA256
 * of the raw body with the app secret>`. Outcomes by the magic numbers of magic.ts.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { phoneOutcome } from './magic';
import { headersOf, recorder } from './recorder';

/** A template message the double accepted. */
export interface WhatsAppMessage {
  wamid: string;
  to: string;
  template: { name: string; language: { code: string }; components: { type: string; parameters: { type: string; text: string }[] }[] };
  bizOpaqueCallbackData: string | null;
  status: string;
}

/** Chaos knobs (tools/chaos/notify.ts). */
export interface WhatsAppFaults {
  failRate?: number;
  timeoutRate?: number;
  duplicateCallbacks?: boolean;
  reorderCallbacks?: boolean;
}

/** A running Cloud API double. */
export interface WhatsAppDouble {
  url: string;
  apiVersion: string;
  phoneNumberId: string;
  accessToken: string;
  appSecret: string;
  verifyToken: string;
  messages: WhatsAppMessage[];
  callbacks: { body: string; status: number }[];
  faults: WhatsAppFaults;
  /** Where status webhooks go (set once our service listens). */
  webhookUrl: string | null;
  /** Runs the GET subscription handshake against `webhookUrl`; returns the status and the echoed body. */
  verify(token?: string): Promise<{ status: number; body: string }>;
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** X-Hub-Signature-256 of a raw body. */
export const hubSignature = (appSecret: string, raw: string) => `sha256=${createHmac('sha256', appSecret).update(raw, 'utf8').digest('hex')}`;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the Cloud API double on 127.0.0.1 (port 0). */
export async function startWhatsAppDouble(opts: { dir?: string; delayMs?: number; callbackDelayMs?: number; templates?: string[]; faults?: WhatsAppFaults } = {}): Promise<WhatsAppDouble> {
  const apiVersion = 'v21.0';
  const phoneNumberId = String(100000000000000 + Math.floor(Math.random() * 1e9));
  const wabaId = String(200000000000000 + Math.floor(Math.random() * 1e9));
  const accessToken = `EAAG${randomBytes(24).toString('hex')}`;
  const appSecret = randomBytes(16).toString('hex');
  const verifyToken = randomBytes(8).toString('hex');
  const templates = new Set(opts.templates ?? ['claim_link_payout']);
  const messages: WhatsAppMessage[] = [];
  const callbacks: WhatsAppDouble['callbacks'] = [];
  const faults: WhatsAppFaults = { ...opts.faults };
  const record = recorder(opts.dir, 'whatsapp');
  let pending = 0;

  const double: WhatsAppDouble = {
    url: '',
    apiVersion,
    phoneNumberId,
    accessToken,
    appSecret,
    verifyToken,
    messages,
    callbacks,
    faults,
    webhookUrl: null,
    async verify(token = verifyToken) {
      const u = new URL(double.webhookUrl as string);
      const challenge = randomBytes(6).toString('hex');
      u.searchParams.set('hub.mode', 'subscribe');
      u.searchParams.set('hub.verify_token', token);
      u.searchParams.set('hub.challenge', challenge);
      const res = await fetch(u);
      const body = await res.text();
      record({ kind: 'verify', method: 'GET', url: u.toString(), headers: {}, body: '', status: res.status, response: body });
      return { status: res.status, body };
    },
    async idle() {
      while (pending > 0) await new Promise((r) => setTimeout(r, 25));
    },
    stop: async () => undefined,
  };

  const webhook = async (m: WhatsAppMessage, status: string, errors?: unknown[]) => {
    if (!double.webhookUrl) return;
    const payload = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: wabaId,
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550001234', phone_number_id: phoneNumberId },
                statuses: [
                  {
                    id: m.wamid,
                    status,
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    recipient_id: m.to,
                    ...(m.bizOpaqueCallbackData ? { biz_opaque_callback_data: m.bizOpaqueCallbackData } : {}),
                    ...(status !== 'failed' ? { conversation: { id: randomBytes(16).toString('hex'), origin: { type: 'utility' } }, pricing: { billable: true, pricing_model: 'CBP', category: 'utility' } } : {}),
                    ...(errors ? { errors } : {}),
                  },
                ],
              },
            },
          ],
        },
      ],
    };
    const raw = JSON.stringify(payload);
    const headers = { 'Content-Type': 'application/json', 'X-Hub-Signature-256': hubSignature(appSecret, raw), 'User-Agent': 'facebookexternalua' };
    let code = 0;
    let text = '';
    try {
      const res = await fetch(double.webhookUrl, { method: 'POST', headers, body: raw, signal: AbortSignal.timeout(15_000) });
      code = res.status;
      text = await res.text();
    } catch (err) {
      text = (err as Error).message;
    }
    callbacks.push({ body: raw, status: code });
    record({ kind: `webhook-${status}`, method: 'POST', url: double.webhookUrl, headers, body: raw, status: code, response: text });
  };

  const schedule = (m: WhatsAppMessage, outcome: string) => {
    const steps: [string, unknown[] | undefined][] =
      outcome === 'whatsapp_131026'
        ? [['failed', [{ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable', error_data: { details: 'Message Undeliverable.' }, href: 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/' }]]]
        : [['sent', undefined], ['delivered', undefined]];
    let seq = faults.reorderCallbacks ? [...steps].reverse() : steps;
    if (faults.duplicateCallbacks) seq = seq.flatMap((s) => [s, s]);
    pending++;
    void (async () => {
      for (const [status, errors] of seq) {
        await new Promise((r) => setTimeout(r, opts.callbackDelayMs ?? 50));
        m.status = status;
        await webhook(m, status, errors);
      }
    })().finally(() => pending--);
  };

  const graphError = (code: number, message: string, details: string, type = 'OAuthException') => ({
    error: { message, type, code, error_data: { messaging_product: 'whatsapp', details }, fbtrace_id: randomBytes(8).toString('base64url') },
  });

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const reply = (status: number, json: unknown) => {
        const text = JSON.stringify(json);
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(text);
        record({ kind: 'request', method: req.method ?? '', url: url.pathname, headers: headersOf(req.headers), body, status, response: text });
      };
      if (req.headers.authorization !== `Bearer ${accessToken}`) return reply(401, graphError(190, 'Invalid OAuth access token - Cannot parse access token', 'Invalid access token'));
      if (req.method !== 'POST' || url.pathname !== `/${apiVersion}/${phoneNumberId}/messages`) return reply(400, graphError(100, 'Unsupported request', `Unknown path ${url.pathname}`, 'GraphMethodException'));
      let b: { messaging_product?: string; to?: string; type?: string; template?: WhatsAppMessage['template']; biz_opaque_callback_data?: string };
      try {
        b = JSON.parse(body);
      } catch {
        return reply(400, graphError(100, 'Invalid parameter', 'The request body is not JSON'));
      }
      if (b.messaging_product !== 'whatsapp' || !b.to) return reply(400, graphError(100, '(#100) Invalid parameter', 'messaging_product must be whatsapp and to is required'));
      if (b.type !== 'template' || !b.template) return reply(400, graphError(131047, 'Re-engagement message', 'More than 24 hours have passed since the recipient last replied; only a template may be sent'));
      if (!templates.has(b.template.name)) return reply(404, graphError(132001, 'Template name does not exist in the translation', `template name (${b.template.name}) does not exist in ${b.template.language?.code}`));
      const outcome = phoneOutcome(b.to);
      if (outcome === 'template_paused') return reply(400, graphError(132015, '(#132015) Template is Paused', 'Template is paused due to low quality so it cannot be sent in a template message'));
      if (faults.failRate && Math.random() < faults.failRate) return reply(500, graphError(131000, 'Something went wrong', 'Message failed to send because of an unknown error'));
      const m: WhatsAppMessage = {
        wamid: `wamid.${Buffer.from(randomBytes(24)).toString('base64url')}`,
        to: b.to,
        template: b.template,
        bizOpaqueCallbackData: b.biz_opaque_callback_data ?? null,
        status: 'accepted',
      };
      messages.push(m);
      schedule(m, outcome);
      const hold = outcome === 'timeout_sent' || (faults.timeoutRate && Math.random() < faults.timeoutRate);
      if (hold) await new Promise((r) => setTimeout(r, opts.delayMs ?? 15_000));
      if (!res.destroyed) reply(200, { messaging_product: 'whatsapp', contacts: [{ input: b.to, wa_id: b.to }], messages: [{ id: m.wamid, message_status: 'accepted' }] });
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  double.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  double.stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return double;
}
