import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  formatAmountFor,
  liveNotificationProvider,
  maskDestination,
  NotificationProviderError,
  type OutgoingNotification,
  readLiveNotificationConfig,
  renderNotification,
  resolveLanguage,
  validateNotificationRequest,
} from '../../src/core/notifications';
import { sandboxNotificationProvider } from '../../src/sandbox/notifications';
import { migrate, openDb } from '../../src/db/connection';
import type { Db } from '../../src/db/schema';
import { ApiError } from '../../src/domain/errors';

const content = { amount: '1250.5', currency: 'USD', senderName: 'Acme Ltd', claimUrl: 'https://pay.example/c/tok123' };

const message = (over: Partial<OutgoingNotification> = {}): OutgoingNotification => ({
  idempotencyKey: 'ntf_test_1',
  businessId: 'biz_1',
  environment: 'sandbox',
  payoutId: 'po_1',
  channel: 'whatsapp',
  destination: '+525512345678',
  language: 'es',
  subject: null,
  body: 'Acme Ltd te envió 25,00 USD.',
  claimUrl: 'https://pay.example/c/tok123',
  ...over,
});

describe('templates', () => {
  it('resolves the language: given tag, then the country, then English', () => {
    expect(resolveLanguage('es')).toBe('es');
    expect(resolveLanguage('pt-BR')).toBe('pt');
    expect(resolveLanguage('ES_mx')).toBe('es');
    expect(resolveLanguage('fr', 'MX')).toBe('es');
    expect(resolveLanguage(undefined, 'BR')).toBe('pt');
    expect(resolveLanguage('de', 'DE')).toBe('en');
    expect(resolveLanguage(null, null)).toBe('en');
    expect(resolveLanguage('en', 'MX')).toBe('en');
  });

  it('formats amounts per language without floating point', () => {
    expect(formatAmountFor('1250.5', 'en')).toBe('1,250.50');
    expect(formatAmountFor('1250.5', 'es')).toBe('1.250,50');
    expect(formatAmountFor('1234567.89', 'pt')).toBe('1.234.567,89');
    expect(formatAmountFor('25', 'en')).toBe('25.00');
    expect(formatAmountFor('0.123456', 'en')).toBe('0.123456');
  });

  it('renders the amount, the sender and the claim link in en, es and pt', () => {
    const expiresAt = new Date('2026-12-23T10:00:00Z');
    const es = renderNotification('es', 'whatsapp', { ...content, expiresAt });
    expect(es).toEqual({
      language: 'es',
      subject: null,
      body: 'Acme Ltd te envió 1.250,50 USD. Elige cómo recibirlo aquí: https://pay.example/c/tok123 El enlace vence el 2026-12-23.',
    });
    const pt = renderNotification('pt', 'sms', content);
    expect(pt.body).toBe('Acme Ltd enviou 1.250,50 USD para você. Escolha como receber aqui: https://pay.example/c/tok123');
    const en = renderNotification('en', 'email', content);
    expect(en.subject).toBe('Acme Ltd sent you 1,250.50 USD');
    expect(en.body).toBe('Acme Ltd sent you 1,250.50 USD. Choose how to receive it here: https://pay.example/c/tok123');
  });

  it('masks phone numbers and e-mail addresses', () => {
    expect(maskDestination('+525512345678')).toBe('+52••••••5678');
    expect(maskDestination('ana.lopez@example.com')).toBe('a•••@example.com');
  });

  it('validates the channel and the destination for it', () => {
    expect(validateNotificationRequest({ channel: 'sms', destination: ' +525512345678 ' })).toEqual({ channel: 'sms', destination: '+525512345678' });
    expect(validateNotificationRequest({ channel: 'email', destination: 'ana@example.com' })).toEqual({ channel: 'email', destination: 'ana@example.com' });
    const bad = (req: { channel: unknown; destination: unknown }) => {
      try {
        validateNotificationRequest(req, { channel: 'delivery_channel', destination: 'destination' });
      } catch (e) {
        expect(e).toBeInstanceOf(ApiError);
        return { status: (e as ApiError).status, param: (e as ApiError).param };
      }
      throw new Error('expected a validation error');
    };
    expect(bad({ channel: 'pigeon', destination: '+525512345678' })).toEqual({ status: 400, param: 'delivery_channel' });
    expect(bad({ channel: 'whatsapp', destination: '5512345678' })).toEqual({ status: 400, param: 'destination' });
    expect(bad({ channel: 'email', destination: '+525512345678' })).toEqual({ status: 400, param: 'destination' });
  });
});

describe('sandbox provider', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openDb({ memory: true });
    await migrate(db);
  });
  afterAll(async () => db?.destroy());

  it('records every message and deduplicates by the notification id', async () => {
    const p = sandboxNotificationProvider(db);
    const first = await p.send(message());
    expect(first.deduplicated).toBe(false);
    expect(first.providerMessageId).toMatch(/^msg_/);
    const again = await p.send(message({ body: 'a retried call' }));
    expect(again).toEqual({ providerMessageId: first.providerMessageId, deduplicated: true });
    const other = await p.send(message({ idempotencyKey: 'ntf_test_2' }));
    expect(other.providerMessageId).not.toBe(first.providerMessageId);
    const rows = await db.selectFrom('sandbox_notification_messages').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.notification_id, r.body])).toEqual([
      ['ntf_test_1', 'Acme Ltd te envió 25,00 USD.'],
      ['ntf_test_2', 'Acme Ltd te envió 25,00 USD.'],
    ]);
  });
});

describe('live provider', () => {
  let server: Server;
  let url: string;
  const received: { headers: IncomingMessage['headers']; body: any }[] = [];
  let answer = { status: 202, body: '{"id":"gw_42"}' };
  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => (raw += d));
      req.on('end', () => {
        received.push({ headers: req.headers, body: JSON.parse(raw) });
        res.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(answer.body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/messages`;
  });
  afterAll(async () => new Promise((r) => server.close(r)));

  it('without configuration fails clearly instead of pretending to send', async () => {
    expect(readLiveNotificationConfig({})).toEqual({
      error: 'No live notification provider is configured (set NOTIFICATIONS_LIVE_URL and NOTIFICATIONS_LIVE_TOKEN); the notification was not sent',
    });
    const err = await liveNotificationProvider({ NOTIFICATIONS_LIVE_URL: url })
      .send(message({ environment: 'live' }))
      .catch((e) => e);
    expect(err).toBeInstanceOf(NotificationProviderError);
    expect(err).toMatchObject({ code: 'not_configured', retryable: false });
    expect(err.message).toContain('NOTIFICATIONS_LIVE_TOKEN');
    expect(received).toHaveLength(0);
    expect(readLiveNotificationConfig({ NOTIFICATIONS_LIVE_URL: 'http://gateway.example/x', NOTIFICATIONS_LIVE_TOKEN: 't' })).toEqual({
      error: 'NOTIFICATIONS_LIVE_URL must use https; the notification was not sent',
    });
  });

  it('posts the message with the notification id as Idempotency-Key and bearer token', async () => {
    const p = liveNotificationProvider({ NOTIFICATIONS_LIVE_URL: url, NOTIFICATIONS_LIVE_TOKEN: 'tok_secret' });
    const sent = await p.send(message({ environment: 'live' }));
    expect(sent).toEqual({ providerMessageId: 'gw_42', deduplicated: false });
    expect(received).toHaveLength(1);
    expect(received[0].headers['idempotency-key']).toBe('ntf_test_1');
    expect(received[0].headers.authorization).toBe('Bearer tok_secret');
    expect(received[0].body).toEqual({
      id: 'ntf_test_1',
      channel: 'whatsapp',
      to: '+525512345678',
      language: 'es',
      subject: null,
      body: 'Acme Ltd te envió 25,00 USD.',
    });
  });

  it('classifies gateway failures: 5xx retryable, 4xx a refusal', async () => {
    const p = liveNotificationProvider({ NOTIFICATIONS_LIVE_URL: url, NOTIFICATIONS_LIVE_TOKEN: 'tok' });
    answer = { status: 503, body: 'busy' };
    await expect(p.send(message())).rejects.toMatchObject({ code: 'unavailable', retryable: true });
    answer = { status: 422, body: '{"error":"bad number"}' };
    await expect(p.send(message())).rejects.toMatchObject({ code: 'rejected', retryable: false });
  });
});
