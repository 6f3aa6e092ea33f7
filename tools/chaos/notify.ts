/**
 * Notification chaos (docs/chaos.md, docs/notifications.md): the provider doubles
 * (tools/notify-doubles) run beside the stack with faults: a tenth of provider calls fail (500 / SMTP
 * 421), a twentieth time out after the message was kept, every status callback is sent twice and in
 * reverse order (a late `sent` after `delivered`, a `delivered` before `sent`). Live Surface C
 * payouts (`/guide/v1`, the business's live key) to this module's destinations (`+525598…`,
 * `chaos-…@example.com`, with the doubles' magic suffixes) are accepted in live as any live
 * claim-link payout (the stack has live providers and the test bank's ACH rail to claim to:
 * docs/notifications.md "When claim_link is live") and notified through the doubles. A forwarder
 * on a loopback port carries the doubles' callbacks to the stack's proxy (the URL is needed before
 * the stack starts).
 *
 * Audit: each payout was messaged at most once per channel, as the doubles saw it (SMS by claim
 * link, WhatsApp by our reference, e-mail by Message-ID), and every final message status is one
 * its provider reported (delivered: the double delivered it; failed: the double refused or failed
 * it with that code).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Db } from '../../src/db/schema';
import { emailOutcome, type NotifyDoubles, phoneOutcome, startNotifyDoubles } from '../notify-doubles';
import type { Check } from './audit';
import type { ChaosClient } from './client';
import { expectedRateRefusal } from './rates';
import type { Rng } from './rng';
import type { TrafficLog } from './traffic';

/** The notification chaos of one run. */
export interface NotifyChaos {
  /** Service environment pointing at the doubles. */
  env: Record<string, string>;
  doubles: NotifyDoubles;
  /** Points the forwarder at the stack. */
  attach(stackUrl: string): void;
  /** The live Surface C client (`live` is the business's live-key client, any prefix) and its live recipient, or null when the recipient is refused. */
  liveGuide(live: ChaosClient, run: string): Promise<{ client: ChaosClient; recipientId: string } | null>;
  /** Creates notified Surface C payouts until `until`, each recorded in `traffic` as a Surface C claim link left waiting (the audit's payout checks). */
  loop(client: ChaosClient, recipientId: string, rng: Rng, until: number, run: string, traffic: TrafficLog): Promise<void>;
  audit(db: Db): Promise<Check[]>;
  /** One row for the traffic table. */
  summary(): [string, string];
  stop(): Promise<void>;
}

/** Starts the doubles with faults and the callback forwarder. */
export async function startNotifyChaos(dir: string): Promise<NotifyChaos> {
  let target = '';
  const forwarder: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
      fetch(`${target}${req.url}`, { method: req.method, headers, body: req.method === 'GET' ? undefined : Buffer.concat(chunks), signal: AbortSignal.timeout(15_000) })
        .then(async (r) => {
          res.writeHead(r.status, { 'Content-Type': r.headers.get('content-type') ?? 'text/plain' });
          res.end(Buffer.from(await r.arrayBuffer()));
        })
        .catch(() => {
          res.writeHead(502);
          res.end();
        });
    });
  });
  await new Promise<void>((r) => forwarder.listen(0, '127.0.0.1', r));
  const hooksBaseUrl = `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}`;
  const faults = { failRate: 0.1, timeoutRate: 0.05, duplicateCallbacks: true, reorderCallbacks: true };
  const doubles = await startNotifyDoubles({ dir: join(dir, 'notify'), hooksBaseUrl, delayMs: 8000, providerTimeout: 'PT3S', callbackDelayMs: 200, twilioFaults: faults, whatsappFaults: faults });
  const created: { id: string; channel: string; to: string }[] = [];
  let stops = 0;
  let refused = 0;
  return {
    env: { ...doubles.env, NOTIFY_WHATSAPP_LOOKUP_GRACE: 'PT30S' },
    doubles,
    attach(stackUrl) {
      target = stackUrl;
    },
    async liveGuide(live, run) {
      const client = live.withPrefix('/guide/v1');
      const r = await client.send('POST', '/recipients', { body: { phone_number: '+525512345678', country: 'MX' }, idem: `${run}-c-live-rcp` });
      return r.status === 201 || r.status === 200 ? { client, recipientId: String(r.body.id) } : null;
    },
    async loop(client, recipientId, rng, until, run, traffic) {
      let n = 0;
      while (Date.now() < until) {
        await new Promise((r) => setTimeout(r, rng.int(600, 1600)));
        if (Date.now() >= until) break;
        n++;
        const channel = rng.pick(['sms', 'whatsapp', 'email'] as const);
        const suffix = channel === 'sms' ? rng.pick(['0001', '0001', '0003', '1610', '0408']) : rng.pick(['0001', '0001', '1026', '2015', '0408']);
        // A Mexican mobile number: +52, then 10 digits (55 98 xx, then the doubles' magic suffix).
        const to = channel === 'email' ? `chaos-${run}-${n}@example.com` : `+525598${String(rng.int(0, 99)).padStart(2, '0')}${suffix}`;
        if (channel === 'sms' && rng.chance(0.1)) {
          await doubles.twilio.inbound(`${hooksBaseUrl}/hooks/twilio/inbound`, to, 'STOP').catch(() => 0);
          stops++;
        }
        const rec = { idem: `${run}-notify-${n}`, kind: 'guide' as const, reference: '', plan: 'wait' as const, status: 0, ids: new Set<string>(), cut: rng.chance(0.2) };
        traffic.payouts.push(rec);
        const r = await client.send('POST', '/payouts', {
          body: { recipient_id: recipientId, amount: '1.00', currency: 'USD', delivery_channel: channel, destination: to, notification: { send: true, language: rng.pick(['en', 'es', 'pt']) } },
          idem: rec.idem,
          cut: rec.cut,
        });
        rec.status = r.status;
        if (r.body?.id) rec.ids.add(String(r.body.id));
        if (r.status === 201 && r.body?.id) created.push({ id: String(r.body.id), channel, to });
        else {
          refused++;
          // Live payouts are refused while the rate sources are down (tools/chaos/rates.ts), as the other live traffic.
          if (!expectedRateRefusal(r.status, r.body)) traffic.unexpected.push(`notify chaos: POST /payouts (${channel}) answered ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
        }
      }
    },
    async audit(db) {
      const checks: Check[] = [];
      const live = await db
        .selectFrom('notification_messages')
        .innerJoin('payouts', 'payouts.id', 'notification_messages.payout_id')
        .select(['notification_messages.id', 'notification_messages.payout_id', 'notification_messages.channel', 'notification_messages.destination', 'notification_messages.status', 'notification_messages.failure_code', 'notification_messages.provider_message_id', 'payouts.claim_token'])
        .where('notification_messages.environment', '=', 'live')
        .execute();
      // At most once per payout and channel, as the providers saw it.
      const seen = new Map<string, number>();
      const bump = (k: string) => seen.set(k, (seen.get(k) ?? 0) + 1);
      const byToken = new Map(live.filter((m) => m.claim_token).map((m) => [m.claim_token as string, m.payout_id]));
      const byRef = new Map(live.map((m) => [m.id, m.payout_id]));
      for (const m of doubles.twilio.messages) {
        const token = /\/c\/([A-Za-z0-9_-]+)/.exec(m.body)?.[1];
        if (token && byToken.has(token)) bump(`${byToken.get(token)}:sms`);
      }
      for (const m of doubles.whatsapp.messages) if (m.bizOpaqueCallbackData && byRef.has(m.bizOpaqueCallbackData)) bump(`${byRef.get(m.bizOpaqueCallbackData)}:whatsapp`);
      for (const m of doubles.smtp.received) {
        const ref = /^Message-ID: <(nmsg_[a-z0-9]+)@/im.exec(m.raw)?.[1];
        if (ref && byRef.has(ref)) bump(`${byRef.get(ref)}:email`);
      }
      const twice = [...seen.entries()].filter(([, c]) => c > 1);
      checks.push({
        name: 'notifications: each claim-link payout messaged at most once per channel (as the providers saw it)',
        ok: twice.length === 0,
        detail: `${seen.size} payout-channel pairs messaged, ${twice.length} more than once${twice.length ? ` [${twice.slice(0, 3).map(([k, c]) => `${k} x${c}`).join('; ')}]` : ''}`,
      });
      // Every final status is one the provider reported.
      const reportedDelivered = new Set<string>();
      for (const c of doubles.twilio.callbacks) if (c.params.MessageStatus === 'delivered' && c.params.MessageSid) reportedDelivered.add(c.params.MessageSid);
      for (const c of doubles.whatsapp.callbacks) {
        for (const e of JSON.parse(c.body).entry ?? []) for (const ch of e.changes ?? []) for (const st of ch.value?.statuses ?? []) if (st.status === 'delivered' || st.status === 'read') reportedDelivered.add(st.id);
      }
      const bad: string[] = [];
      for (const m of live) {
        if (m.status === 'delivered') {
          if (!reportedDelivered.has(m.provider_message_id ?? '')) bad.push(`${m.id} delivered`);
        } else if (m.status === 'failed') {
          const outcome = m.channel === 'email' ? emailOutcome(m.destination) : phoneOutcome(m.destination);
          const expected: Record<string, string[]> = {
            undelivered_30003: ['30003'],
            failed_21610: ['21610'],
            whatsapp_131026: ['131026'],
            template_paused: ['132015'],
            bounce: ['smtp_550'],
          };
          const ok = ['opted_out', 'not_needed', '21610'].includes(m.failure_code ?? '') || (expected[outcome] ?? []).includes(m.failure_code ?? '');
          if (!ok) bad.push(`${m.id} failed ${m.failure_code} (${m.channel}, outcome ${outcome})`);
        }
      }
      checks.push({ name: 'notifications: every final message status is one its provider reported', ok: bad.length === 0, detail: `${live.length} live messages, ${bad.length} not reported so [${bad.slice(0, 3).join('; ')}]` });
      const pending = await db.selectFrom('notification_messages').select('id').where('status', '=', 'sending').where('environment', '=', 'live').execute();
      checks.push({ name: 'notifications: no live message left unresolved (sending)', ok: pending.length === 0, detail: `${pending.length} left sending` });
      return checks;
    },
    summary() {
      const ch = (c: string) => created.filter((x) => x.channel === c).length;
      return [
        'live notifications through the provider doubles (sms / whatsapp / email; STOP answers)',
        `${created.length} (${ch('sms')} / ${ch('whatsapp')} / ${ch('email')}; ${stops}; ${refused} not 201); at the doubles ${doubles.twilio.messages.length} SMS, ${doubles.whatsapp.messages.length} WhatsApp, ${doubles.smtp.received.length} e-mails, ${doubles.twilio.callbacks.length + doubles.whatsapp.callbacks.length} callbacks`,
      ];
    },
    async stop() {
      await doubles.stop();
      forwarder.closeAllConnections();
      await new Promise((r) => forwarder.close(r));
    },
  };
}
