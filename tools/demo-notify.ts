/**
 * `npm run demo:notify`: live claim-link notifications through the provider doubles on one machine
 * (docs/notifications.md "Test doubles"). Starts the SMTP server, the Twilio-shaped API and the
 * Cloud-API-shaped server (tools/notify-doubles), a Temporal dev server, and the service in this
 * process (API on a free loopback port, worker, relay) configured for the doubles; then sends one
 * live claim-link payout per outcome through the payout workflow's notification step:
 *
 * e-mail delivered (DKIM-signed) | e-mail refused 550 | e-mail timeout with the message kept |
 * SMS delivered | SMS undelivered 30003 | SMS refused 21610 | SMS timeout with the message sent |
 * WhatsApp delivered | WhatsApp 131026 then one SMS | WhatsApp template paused then one SMS |
 * WhatsApp timeout with the message sent | SMS after the number answered STOP
 *
 * and prints each notification's final state and the messages each double holds. Ends with
 * `files: <folder>`: every raw e-mail as received (`mail/*.eml`), the DKIM public key
 * (`dkim-public.pem`, `dkim-dns.txt`), and each provider request and callback with its headers
 * (`twilio/*.json`, `whatsapp/*.json`).
 *
 * Live claim-link payouts are not accepted by the API on this machine: the claim_link channel is
 * `paused` in live until a live rail serves claims (src/core/rails/rail-adapters.ts). So each payout is
 * accepted in the sandbox and made live before its workflow starts; from there on everything the
 * notification step does is live. Options (env): DEMO_NOTIFY_DIR (default .data/demo-notify-<time>).
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { serve } from '@hono/node-server';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createApp } from '../src/api/app';
import { loadConfig } from '../src/config';
import { createBusiness } from '../src/core/businesses';
import type { Caller } from '../src/core/context';
import { post } from '../src/core/ledger';
import { closeLiveProviders, createNotifiedPayouts, maskDestination } from '../src/core/notifications';
import { startRelay } from '../src/core/relay';
import { relayTasks } from '../src/core/relay-tasks';
import { drainWorkflowStarts } from '../src/core/workflow-starts';
import { buildCore, closeCore } from '../src/main/runtime';
import { prepareWorkflowBundle } from '../src/temporal/bundle';
import { temporalConnectionOptions } from '../src/temporal/connection-options';
import { freePort, startDevServer } from '../src/temporal/dev-server';
import { createWorker, ensureSearchAttributes } from '../src/temporal/worker';
import { MAGIC, startNotifyDoubles } from './notify-doubles';

Runtime.install({ logger: new DefaultLogger('WARN') });
const dir = resolve(process.env.DEMO_NOTIFY_DIR ?? join('.data', `demo-notify-${new Date().toISOString().replace(/[:.]/g, '-')}`));
mkdirSync(join(dir, 'service'), { recursive: true });
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const doubles = await startNotifyDoubles({ dir, hooksBaseUrl: base, delayMs: 5000, providerTimeout: 'PT2S', callbackDelayMs: 300 });
console.log(`SMTP server:      ${doubles.smtp.url}`);
console.log(`Twilio double:    ${doubles.twilio.url}`);
console.log(`Cloud API double: ${doubles.whatsapp.url}`);
const temporal = await startDevServer({ port: await freePort(), uiPort: await freePort(), dbFile: join(dir, 'service', 'temporal.sqlite'), headless: true });
const config = loadConfig({
  ...process.env,
  ...doubles.env,
  DATA_DIR: join(dir, 'service'),
  PORT: String(port),
  PUBLIC_URL: base,
  TEMPORAL_ADDRESS: temporal.address,
  TASK_QUEUE: 'demo-notify',
  LOG_LEVEL: 'warn',
  NOTIFY_WHATSAPP_LOOKUP_GRACE: 'PT20S',
});
await ensureSearchAttributes(temporalConnectionOptions(config), config.TEMPORAL_NAMESPACE);
const core = await buildCore(config);
const workflowBundle = await prepareWorkflowBundle({ outFile: join(dir, 'service', 'workflow-bundle.js') });
const { worker, connection } = await createWorker(core, { workflowBundle });
const workerRun = worker.run();
const stopRelay = startRelay(core, relayTasks);
const server = serve({ fetch: createApp(core).fetch, port, hostname: '127.0.0.1' });
console.log(`service:          ${base}\n`);

let code = 0;
try {
  const verify = await doubles.whatsapp.verify();
  console.log(`WhatsApp webhook handshake (GET hub.challenge): HTTP ${verify.status}`);
  const biz = await createBusiness(core.db, { name: 'Acme Ltd', verified: true });
  const key = await core.db.selectFrom('api_keys').select('id').where('business_id', '=', biz.businessId).where('environment', '=', 'sandbox').executeTakeFirstOrThrow();
  const caller: Caller = { businessId: biz.businessId, environment: 'sandbox', keyId: key.id, role: 'owner', policy: null };
  await core.db.transaction().execute((tx) => post(tx, { businessId: biz.businessId, environment: 'sandbox', key: 'demo:fund', from: 'external', to: 'available', amount: 1_000_000_000n }));

  const stopNumber = '+525512349999';
  const stop = await doubles.twilio.inbound(`${base}/hooks/twilio/inbound`, stopNumber, 'STOP');
  console.log(`Twilio inbound STOP from ${maskDestination(stopNumber)}: HTTP ${stop}\n`);

  const cases: { outcome: string; channel: 'email' | 'sms' | 'whatsapp'; to: string }[] = [
    { outcome: 'e-mail delivered, DKIM-signed', channel: 'email', to: MAGIC.emailDelivered },
    { outcome: 'e-mail refused 550', channel: 'email', to: MAGIC.emailBounce },
    { outcome: 'e-mail timeout, message kept', channel: 'email', to: MAGIC.emailTimeout },
    { outcome: 'SMS delivered', channel: 'sms', to: MAGIC.smsDelivered },
    { outcome: 'SMS undelivered 30003', channel: 'sms', to: MAGIC.smsUndelivered },
    { outcome: 'SMS refused 21610', channel: 'sms', to: MAGIC.smsUnsubscribed },
    { outcome: 'SMS timeout, message sent', channel: 'sms', to: MAGIC.smsTimeout },
    { outcome: 'WhatsApp delivered', channel: 'whatsapp', to: MAGIC.whatsappDelivered },
    { outcome: 'WhatsApp 131026, then SMS', channel: 'whatsapp', to: MAGIC.whatsappNotAUser },
    { outcome: 'WhatsApp template paused, then SMS', channel: 'whatsapp', to: MAGIC.whatsappTemplatePaused },
    { outcome: 'WhatsApp timeout, message sent', channel: 'whatsapp', to: MAGIC.whatsappTimeout },
    { outcome: 'SMS to a number that sent STOP', channel: 'sms', to: stopNumber },
  ];
  const ids: string[] = [];
  for (const c of cases) {
    const recipient = c.channel === 'email' ? { type: 'email' as const, address: c.to } : { type: 'phone' as const, number: c.to };
    const [p] = await createNotifiedPayouts(core, caller, [{ payout: { channel: 'claim_link', recipient, destinationAmount: '25' }, notification: { channel: c.channel, destination: c.to, language: 'es' } }]);
    const id = p!.payout.id;
    await core.db.updateTable('payouts').set({ environment: 'live' }).where('id', '=', id).execute();
    await core.db.updateTable('notifications').set({ environment: 'live' }).where('payout_id', '=', id).execute();
    ids.push(id);
  }
  await drainWorkflowStarts(core);
  const final = new Set(['delivered', 'failed', 'canceled']);
  const deadline = Date.now() + 90_000;
  for (;;) {
    const rows = await core.db.selectFrom('notifications').select(['payout_id', 'status', 'channel']).where('payout_id', 'in', ids).execute();
    const done = rows.filter((r) => final.has(r.status) || (r.channel === 'email' && r.status === 'sent'));
    if (done.length === ids.length || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  await new Promise((r) => setTimeout(r, 6000)); // late answers of the timed-out calls reach the doubles
  console.log('| outcome | to | notification | failure_code | messages (channel: status) |');
  console.log('|---|---|---|---|---|');
  for (const [i, c] of cases.entries()) {
    const n = await core.db.selectFrom('notifications').selectAll().where('payout_id', '=', ids[i]!).executeTakeFirstOrThrow();
    const msgs = await core.db.selectFrom('notification_messages').select(['channel', 'status', 'failure_code']).where('payout_id', '=', ids[i]!).orderBy('created_at').execute();
    console.log(`| ${c.outcome} | ${maskDestination(c.to)} | ${n.status} | ${n.failure_code ?? '-'} | ${msgs.map((m) => `${m.channel}: ${m.status}${m.failure_code ? ` (${m.failure_code})` : ''}`).join(', ') || '-'} |`);
  }
  console.log(`\nAt the doubles: ${doubles.smtp.received.length} e-mails, ${doubles.twilio.messages.length} SMS, ${doubles.whatsapp.messages.length} WhatsApp templates; ${doubles.twilio.callbacks.length} Twilio callbacks and ${doubles.whatsapp.callbacks.length} WhatsApp webhooks made (every one answered ${[...new Set([...doubles.twilio.callbacks, ...doubles.whatsapp.callbacks].map((c) => c.status))].join('/')}).`);
  for (const sub of ['mail', 'twilio', 'whatsapp']) console.log(`  ${sub}/: ${readdirSync(join(dir, sub)).length} files`);
  console.log('  dkim-public.pem, dkim-dns.txt: the DKIM key the e-mails are signed with');
} catch (err) {
  console.error(String((err as Error)?.stack ?? err));
  code = 1;
} finally {
  await stopRelay();
  worker.shutdown();
  await workerRun.catch(() => undefined);
  await connection.close();
  server.close();
  closeLiveProviders(core);
  await closeCore(core);
  await temporal.stop();
  await doubles.stop();
}
console.log(`files: ${dir}`);
process.exit(code);
