/**
 * Payouts that notify their recipient (docs/architecture.md "Surfaces": a Surface C payout with a delivery
 * channel is a claim-link payout that notifies the recipient; docs/surface-c.md). One use case for a single
 * payout and a batch: every request is validated and priced first, then all payouts are accepted
 * in ONE transaction (rows, holds, payout.submitted events, notification records, workflow starts
 * with `notify`), so a batch is all or nothing: one bad entry, or a balance that does not cover the
 * whole batch, refuses it and changes nothing.
 *
 * Crash safety (docs/architecture.md "Money rules", rule 5): each payout carries an idempotency key under the payouts unique
 * index (`<key>` for one payout, `<key>#<i>` for entry i of a batch). A request retried with the
 * same key after its process died mid-way returns the payouts the first run committed, and never
 * creates a second set; workflow starts go through the start outbox (the relay starts any left).
 */
import type { Caller, Core } from '../context';
import { insertPayout, type PayoutRequest, type PayoutRow, payoutStart, preparePayout, type PreparedPayout } from '../payouts';
import type { PayoutWorkflowInput } from '../../../workflows/payout.contract';
import { enqueueWorkflowStart, flushWorkflowStart, handOffWorkflowStart, type PendingStart } from '../workflow-starts';
import { applyPayoutPolicy } from '../policies/payouts';
import { insertPayoutNotification, type NotificationRequest, type NotificationRow } from './payout-notifications';
import { isUniqueViolation } from '../../db/errors';
import { ApiError } from '../../domain/errors';
import { liveNotificationChannelProblem } from '../claim-routes';

/** One payout to create, with the notification of its recipient (null: do not notify). */
export interface NotifiedPayoutRequest {
  payout: PayoutRequest;
  notification: NotificationRequest | null;
}

/** A created payout and its notification record (null when not notified). */
export interface NotifiedPayout {
  row: PayoutRow;
  notification: NotificationRow | null;
}

const itemKey = (key: string, i: number, batch: boolean) => (batch ? `${key}#${i}` : key);

async function existingFor(core: Core, caller: Caller, keys: string[]): Promise<NotifiedPayout[] | null> {
  const rows = await core.db
    .selectFrom('payouts')
    .selectAll()
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment)
    .where('idempotency_key', 'in', keys)
    .execute();
  if (rows.length === 0) return null;
  const byKey = new Map(rows.map((r) => [r.idempotency_key, r]));
  const ordered = keys.map((k) => byKey.get(k)).filter((r): r is PayoutRow => r !== undefined);
  const notes = ordered.length ? await core.db.selectFrom('notifications').selectAll().where('payout_id', 'in', ordered.map((r) => r.id)).execute() : [];
  return ordered.map((row) => ({ row, notification: notes.find((n) => n.payout_id === row.id) ?? null }));
}


/**
 * Creates payouts that notify their recipients (see the file header). `opts.batch` makes the
 * idempotency keys per entry and prefixes error params with `opts.paramPrefix(i)` (e.g.
 * `payouts.3.`). Returns the payouts in request order (status submitted, attempts 1).
 * Errors: those of preparePayout (400 validation_error, channel_unavailable, amount_out_of_range;
 * 404 recipient; 422 recipient_not_ready), 400 channel_unavailable (`<prefix>delivery_channel`) in
 * live when the notification's channel has no live provider, and 402 insufficient_balance for the
 * whole request.
 * The notification requests must have passed validateNotificationRequest.
 */
export async function createNotifiedPayouts(
  core: Core,
  caller: Caller,
  items: NotifiedPayoutRequest[],
  opts: { idempotencyKey?: string; batch?: boolean; paramPrefix?: (i: number) => string } = {},
): Promise<NotifiedPayout[]> {
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

  let created: NotifiedPayout[];
  /** The workflow starts recorded by the transaction, handed off after it commits. */
  let starts: PendingStart[] = [];
  try {
    created = await core.db.transaction().execute(async (tx) => {
      const out: NotifiedPayout[] = [];
      starts = [];
      for (const [i, p] of prepared.entries()) {
        // Key policy (src/core/policies): may refuse (403 policy_exceeded) or make the payout wait for approval.
        const pre = opts.paramPrefix?.(i) ?? '';
        const gate = await applyPayoutPolicy(tx, core, caller, p.channel.id, p.price.sourceAmount, { channel: `${pre}delivery_channel`, amount: `${pre}amount` });
        const { row } = await insertPayout(tx, core, caller, p, {
          idempotencyKey: key ? keys[i] : undefined,
          funding: 'balance',
          startWorkflow: false,
          approval: gate.approval ?? undefined,
        });
        const req = items[i].notification;
        const notification = req ? await insertPayoutNotification(tx, core, row, req) : null;
        const input: PayoutWorkflowInput = {
          payoutId: row.id,
          channel: row.channel,
          notify: notification !== null,
          ...(gate.approval ? { approval: { timeoutMs: gate.approval.timeoutMs } } : {}),
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
  // Committed with their starts: answered now, started by this process's starter or the relay
  // (src/core/workflow-starts.ts handOffWorkflowStart), as POST /payouts.
  for (const start of starts) handOffWorkflowStart(core, start);
  return created;
}

/** Makes the recorded start of a payout found by its idempotency key if it was never made; if Temporal is unreachable the relay makes it later. */
async function flushSoon(core: Core, payoutId: string): Promise<void> {
  try {
    await flushWorkflowStart(core, payoutId);
  } catch (err) {
    core.log.warn({ err, payoutId }, 'payout workflow start deferred to the relay');
  }
}
