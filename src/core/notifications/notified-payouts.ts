/**
 * Payouts that notify their recipient (docs/surface-c.md). All payouts of a request are accepted in
 * ONE transaction: all or nothing. Idempotency keys `<key>` / `<key>#<i>` make a retry return the
 * first run's payouts.
 */
import type { Caller, Core } from '../context';
import { insertPayout, payoutFromRow, type PayoutRequest, type PayoutRow, payoutStart, preparePayout, type PreparedPayout } from '../payouts';
import type { PayoutNotification } from '../../domain/notifications';
import type { Payout } from '../../domain/payouts';
import { PAYOUT_CHECKS_LEVEL, PAYOUT_PATCH_LEVEL, type PayoutWorkflowInput } from '../../../workflows/payout.contract';
import { enqueueWorkflowStart, flushWorkflowStart, handOffWorkflowStart, type PendingStart } from '../workflow-starts';
import { applyPayoutPolicy } from '../policies/payouts';
import { insertPayoutNotification, type NotificationRequest, type NotificationRow, notificationFromRow } from './payout-notifications';
import { isUniqueViolation } from '../../db/errors';
import { ApiError } from '../../domain/errors';
import { liveNotificationChannelProblem } from '../claim-routes';
import { scoped } from '../tenancy';

export interface NotifiedPayoutRequest {
  payout: PayoutRequest;
  notification: NotificationRequest | null;
}

/** A created payout and its notification, as domain objects. */
export interface NotifiedPayout {
  payout: Payout;
  notification: PayoutNotification | null;
}

interface NotifiedRow {
  row: PayoutRow;
  notification: NotificationRow | null;
}

const itemKey = (key: string, i: number, batch: boolean) => (batch ? `${key}#${i}` : key);

async function existingFor(core: Core, caller: Caller, keys: string[]): Promise<NotifiedRow[] | null> {
  const rows = await scoped(core.db, caller)
    .selectFrom('payouts')
    .selectAll()
    .where('idempotency_key', 'in', keys)
    .execute();
  if (rows.length === 0) return null;
  const byKey = new Map(rows.map((r) => [r.idempotency_key, r]));
  const ordered = keys.map((k) => byKey.get(k)).filter((r): r is PayoutRow => r !== undefined);
  const notes = ordered.length ? await core.db.selectFrom('notifications').selectAll().where('payout_id', 'in', ordered.map((r) => r.id)).execute() : [];
  return ordered.map((row) => ({ row, notification: notes.find((n) => n.payout_id === row.id) ?? null }));
}


/**
 * Creates notifying payouts in request order (requests validated by validateNotificationRequest).
 * Errors: those of preparePayout, 400 channel_unavailable without a live provider, 402 insufficient_balance.
 */
export async function createNotifiedPayouts(
  core: Core,
  caller: Caller,
  items: NotifiedPayoutRequest[],
  opts: { idempotencyKey?: string; batch?: boolean; paramPrefix?: (i: number) => string } = {},
): Promise<NotifiedPayout[]> {
  const rows = await createNotifiedRows(core, caller, items, opts);
  return rows.map((r) => ({ payout: payoutFromRow(r.row, core.config.publicUrl), notification: r.notification && notificationFromRow(r.notification) }));
}

async function createNotifiedRows(
  core: Core,
  caller: Caller,
  items: NotifiedPayoutRequest[],
  opts: { idempotencyKey?: string; batch?: boolean; paramPrefix?: (i: number) => string },
): Promise<NotifiedRow[]> {
  const batch = opts.batch ?? false;
  const key = opts.idempotencyKey;
  const keys = key ? items.map((_, i) => itemKey(key, i, batch)) : [];
  if (key) {
    const existing = await existingFor(core, caller, keys);
    if (existing) {
      for (const p of existing) await flushSoon(core, p.row.id);
      return existing;
    }
  }

  const prepared: PreparedPayout[] = [];
  for (const [i, item] of items.entries()) {
    prepared.push(await preparePayout(core, caller, item.payout, { paramPrefix: opts.paramPrefix?.(i) ?? '' }));
    const problem = caller.environment === 'live' && item.notification ? liveNotificationChannelProblem(core.config, item.notification.channel) : null;
    if (problem) throw new ApiError(400, 'channel_unavailable', `The recipient cannot be notified by ${item.notification!.channel} in the live environment: ${problem}`, `${opts.paramPrefix?.(i) ?? ''}delivery_channel`);
  }

  let created: NotifiedRow[];
  let starts: PendingStart[] = [];
  try {
    created = await core.db.transaction().execute(async (tx) => {
      const out: NotifiedRow[] = [];
      starts = [];
      for (const [i, p] of prepared.entries()) {
        const pre = opts.paramPrefix?.(i) ?? '';
        const gate = await applyPayoutPolicy(tx, core, caller, p.channel.id, p.price.sourceAmount, { channel: `${pre}delivery_channel`, amount: `${pre}amount` });
        const { row } = await insertPayout(tx, core, caller, p, {
          idempotencyKey: key ? keys[i] : undefined,
          funding: 'balance',
          startWorkflow: false,
          approval: gate.approval ?? undefined,
        });
        const req = items[i].notification;
        const notification = req ? await insertPayoutNotification(tx, core, { id: row.id, businessId: row.business_id, environment: row.environment }, req) : null;
        const input: PayoutWorkflowInput = {
          payoutId: row.id,
          channel: row.channel,
          ...(notification ? { notify: true, notifyFirst: 'local' as const } : { notify: false }),
          ...(gate.approval ? { approval: { timeoutMs: gate.approval.timeoutMs } } : {}),
          patchLevel: PAYOUT_PATCH_LEVEL,
          checks: PAYOUT_CHECKS_LEVEL,
        };
        const start = { ...payoutStart(row), args: [input] };
        await enqueueWorkflowStart(tx, start);
        starts.push(start);
        out.push({ row, notification });
      }
      return out;
    });
  } catch (err) {
    if (key && isUniqueViolation(err)) {
      const winner = await existingFor(core, caller, keys);
      if (winner) return winner;
    }
    throw err;
  }
  for (const start of starts) handOffWorkflowStart(core, start);
  return created;
}

/** Makes a found payout's recorded start if it was never made (else the relay does). */
async function flushSoon(core: Core, payoutId: string): Promise<void> {
  try {
    await flushWorkflowStart(core, payoutId);
  } catch (err) {
    core.log.warn({ err, payoutId }, 'payout workflow start deferred to the relay');
  }
}
