import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createActivities } from '../../activities';
import { createNotificationActivities, type NotificationActivityOptions } from '../../activities/notifications';
import type { Caller } from '../../src/core/context';
import { createNotifiedPayouts, liveNotificationProvider, type NotificationRequest, sendPayoutNotification } from '../../src/core/notifications';
import { transitionPayout } from '../../src/core/payouts';
import { createHarness, type Harness } from '../helpers/harness';
import { drainWorkflowStarts } from '../../src/core/workflow-starts';

/**
 * The notification step of payoutWorkflow (docs/surface-c.md): sent once the claim link is open, recorded on
 * the payout with payout.notification_sent, and never sent twice even when the worker fails between
 * the provider call and the recording. Each test runs its own worker with the real workflows and
 * activities, the notification activities built with the test's options.
 */
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ worker: false });
  await h.db.updateTable('businesses').set({ name: 'Acme Ltd' }).execute();
});
afterAll(async () => h?.close());

async function withWorker<T>(opts: NotificationActivityOptions, fn: () => Promise<T>): Promise<T> {
  const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  try {
    const worker = await Worker.create({
      connection,
      namespace: h.config.TEMPORAL_NAMESPACE,
      taskQueue: h.config.TASK_QUEUE,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: { ...createActivities(h.core), ...createNotificationActivities(h.core, opts) },
    });
    return await worker.runUntil(fn());
  } finally {
    await connection.close();
  }
}

async function newCaller(): Promise<Caller> {
  const b = await h.business();
  await h.db.updateTable('businesses').set({ name: 'Acme Ltd' }).where('id', '=', b.id).execute();
  const r = await h.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount: '500' } });
  expect(r.status).toBe(200);
  const key = await h.db.selectFrom('api_keys').select('id').where('business_id', '=', b.id).where('environment', '=', 'sandbox').executeTakeFirstOrThrow();
  return { businessId: b.id, environment: 'sandbox', keyId: key.id, role: 'owner', policy: null };
}

async function waitFor<T>(fn: () => Promise<T | undefined | false>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const whatsappEs: NotificationRequest = { channel: 'whatsapp', destination: '+525512345678', language: 'es' };

async function notifiedPayout(caller: Caller, notification: NotificationRequest | null = whatsappEs) {
  const [p] = await createNotifiedPayouts(h.core, caller, [
    { payout: { channel: 'claim_link', recipient: { type: 'phone', number: '+525512345678' }, destinationAmount: '25' }, notification },
  ]);
  // Answered before its workflow start was made (src/core/workflow-starts.ts handOffWorkflowStart).
  await drainWorkflowStarts(h.core);
  return p.payout.id;
}

const notificationOf = (payoutId: string) => h.db.selectFrom('notifications').selectAll().where('payout_id', '=', payoutId).executeTakeFirstOrThrow();
const messagesOf = (payoutId: string) => h.db.selectFrom('sandbox_notification_messages').selectAll().where('payout_id', '=', payoutId).execute();
const eventsOf = async (payoutId: string) =>
  (await h.db.selectFrom('events').select('type').where('object_id', '=', payoutId).orderBy('created_at').orderBy('id').execute()).map((e) => e.type);
/** Where payoutNotify ran in the payout's history: `local` per local-activity marker, `activity` per scheduled activity task. */
async function notifySteps(payoutId: string): Promise<string[]> {
  const { events } = await h.core.temporal.workflow.getHandle(payoutId).fetchHistory();
  return (events ?? []).flatMap((e) => {
    if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'payoutNotify') return ['activity'];
    const data = e.markerRecordedEventAttributes?.markerName === 'core_local_activity' ? e.markerRecordedEventAttributes.details?.data?.payloads?.[0]?.data : undefined;
    return data && JSON.parse(Buffer.from(data).toString('utf8')).activity_type === 'payoutNotify' ? ['local'] : [];
  });
}
const cancel = (payoutId: string) => h.core.temporal.workflow.getHandle(payoutId).terminate('test over');

describe('notification step (dev server)', () => {
  it('sends the Spanish message with amount, sender and claim link once the claim link is open, and emits payout.notification_sent', async () => {
    const caller = await newCaller();
    const id = await notifiedPayout(caller);
    await withWorker({}, async () => {
      await waitFor(async () => (await notificationOf(id)).status === 'sent', 'notification sent');
    });
    const payout = await h.db.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(payout.status).toBe('awaiting_claim');
    const n = await notificationOf(id);
    expect(n).toMatchObject({ status: 'sent', language: 'es', provider: 'sandbox', attempts: 1, error: null });
    expect(n.sent_at).toBeInstanceOf(Date);
    const msgs = await messagesOf(id);
    expect(msgs).toHaveLength(1);
    const claimUrl = `${h.config.publicUrl}/c/${payout.claim_token}`;
    expect(msgs[0]).toMatchObject({ notification_id: n.id, channel: 'whatsapp', destination: '+525512345678', language: 'es', claim_url: claimUrl });
    expect(msgs[0].body).toContain(`Acme Ltd te envió 25,00 USD. Elige cómo recibirlo aquí: ${claimUrl}`);
    expect(n.provider_message_id).toBe(msgs[0].id);
    expect(await eventsOf(id)).toEqual(['payout.submitted', 'payout.awaiting_claim', 'payout.notification_sent']);
    // Sent by one attempt in the workflow task: no activity task (issue #39).
    expect(await notifySteps(id)).toEqual(['local']);
    await cancel(id);
  });

  it('a worker failing between the provider call and the recording does not send twice: one recorded message, one event', async () => {
    const caller = await newCaller();
    const id = await notifiedPayout(caller);
    let calls = 0;
    await withWorker(
      {
        afterProviderCall: () => {
          calls++;
          if (calls === 1) throw new Error('worker lost before recording the notification');
        },
      },
      async () => {
        await waitFor(async () => (await notificationOf(id)).status === 'sent', 'notification sent after the retry');
      },
    );
    expect(calls).toBe(2);
    const n = await notificationOf(id);
    expect(n.attempts).toBe(2);
    const msgs = await messagesOf(id);
    expect(msgs).toHaveLength(1);
    expect(n.provider_message_id).toBe(msgs[0].id);
    expect((await eventsOf(id)).filter((t) => t === 'payout.notification_sent')).toHaveLength(1);
    // The local attempt failed; the retried activity sent nothing twice.
    expect(await notifySteps(id)).toEqual(['local', 'activity']);
    await cancel(id);
  });

  it('an unconfigured live provider fails the notification clearly (not retried) and the payout keeps waiting for its claim', async () => {
    const caller = await newCaller();
    const id = await notifiedPayout(caller, { channel: 'sms', destination: '+5511987654321' });
    await withWorker({ provider: liveNotificationProvider({}) }, async () => {
      await waitFor(async () => (await notificationOf(id)).status === 'failed', 'notification failed');
    });
    const n = await notificationOf(id);
    expect(n.attempts).toBe(1);
    expect(n.language).toBe('pt');
    expect(n.error).toContain('No live notification provider is configured');
    expect(await messagesOf(id)).toHaveLength(0);
    const payout = await h.db.selectFrom('payouts').select('status').where('id', '=', id).executeTakeFirstOrThrow();
    expect(payout.status).toBe('awaiting_claim');
    expect(await eventsOf(id)).not.toContain('payout.notification_sent');
    // Not deliverable: the local attempt's refusal is final, no activity retries it.
    expect(await notifySteps(id)).toEqual(['local']);
    await cancel(id);
  });

  it('a claim link without a notification runs no notification step', async () => {
    const caller = await newCaller();
    const id = await notifiedPayout(caller, null);
    await withWorker({}, async () => {
      await waitFor(
        async () => (await h.db.selectFrom('payouts').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status === 'awaiting_claim',
        'awaiting_claim',
      );
      expect(await notifySteps(id)).toEqual([]);
    });
    expect(await h.db.selectFrom('notifications').select('id').where('payout_id', '=', id).execute()).toHaveLength(0);
    await cancel(id);
  });

  it('a payout that ended before its notification went out is not notified: the notification is canceled', async () => {
    const caller = await newCaller();
    const id = await notifiedPayout(caller);
    await h.core.temporal.workflow.getHandle(id).terminate('test: no worker runs this payout');
    await transitionPayout(h.core, id, 'failed', { failure: { code: 'provider_declined', message: 'declined' } });
    expect(await sendPayoutNotification(h.core, id)).toMatchObject({ result: 'canceled' });
    expect(await notificationOf(id)).toMatchObject({ status: 'canceled', attempts: 0 });
    expect(await messagesOf(id)).toHaveLength(0);
    expect(await sendPayoutNotification(h.core, id)).toMatchObject({ result: 'canceled' });
  });
});
