/**
 * Run control: launch (hold the batch, record the workflow start), pause, resume and retry-failed
 * (projection first, then a signal through src/temporal/disbursement-gateway.ts).
 */
import { assertCanApply, DISBURSEMENT_EVENT_ON_ENTER, type DisbursementStatus } from '../../domain/disbursement-state';
import { ApiError } from '../../domain/errors';
import { RETRYABLE_FAILURE_CODES } from '../../domain/payout-state';
import { DISBURSEMENT_WORKFLOW_TYPE, type DisbursementWorkflowInput } from '../../../workflows/disbursement.contract';
import { type DisbursementSignal, signalDisbursementRun, signalWithStartDisbursementRun } from '../../temporal/disbursement-gateway';
import type { Disbursement } from '../../domain/disbursements';
import type { Caller, Core } from '../context';
import { emitEvent } from '../events';
import { getBalance, InsufficientFundsError, insufficientBalance, post } from '../ledger';
import { enqueueWorkflowStart, flushWorkflowStart, type PendingStart } from '../workflow-starts';
import type { DisbursementRow } from './shared';
import {
  itemAggregates,
  retryCandidates,
  approvalsReceived,
  approvalsRequired,
  loadDisbursement,
  findRow,
} from './read';
import { applyLaunchPolicy } from '../policies/disbursement-launch';
import { itemsNeedReview } from './approvals';
import { callerActor, recordAuditEvent } from '../audit';
import { queueReadyItems, requeueItems, updateDisbursement } from './disbursement-store';
import { disbursementLaunchedEvent } from '../../domain/domain-events';

/** Tuning of the disbursement workflow (operators and tests; not on the wire). */
export interface RunOptions {
  /** Children in flight at most (default 300). */
  window?: number;
  claimBatch?: number;
  itemsPerRun?: number;
}

function workflowInput(row: DisbursementRow, opts: RunOptions & { paused?: boolean; claimSeq?: number } = {}): DisbursementWorkflowInput {
  return {
    disbursementId: row.id,
    businessId: row.business_id,
    environment: row.environment,
    ...(opts.window !== undefined ? { window: opts.window } : {}),
    ...(opts.claimBatch !== undefined ? { claimBatch: opts.claimBatch } : {}),
    ...(opts.itemsPerRun !== undefined ? { itemsPerRun: opts.itemsPerRun } : {}),
    ...(opts.paused ? { paused: true } : {}),
    ...(opts.claimSeq !== undefined ? { claimSeq: opts.claimSeq } : {}),
  };
}

/** The workflow start of a launched disbursement (id = disbursement id; BusinessId, Environment, DisbursementStatus). */
export function disbursementStart(row: DisbursementRow, opts: RunOptions = {}): PendingStart {
  return {
    workflowType: DISBURSEMENT_WORKFLOW_TYPE,
    workflowId: row.id,
    args: [workflowInput(row, opts)],
    searchAttributes: {
      BusinessId: row.business_id,
      Environment: row.environment,
      DisbursementId: row.id,
      DisbursementStatus: 'processing',
    },
  };
}

const approvalRequired = (received: number, required: number, submitted: boolean) =>
  new ApiError(
    409,
    'approval_required',
    submitted
      ? `The current revision has ${received} of the ${required} approval${required === 1 ? '' : 's'} it needs`
      : `The disbursement needs ${required} approval${required === 1 ? '' : 's'}; submit it for approval first`,
    null,
    { required, received },
  );

/**
 * `POST /disbursements/{id}/launch`: in one transaction holds the batch total, moves ready items to
 * pending and records the workflow start. 409 items_need_review / approval_required / invalid_state;
 * 402 insufficient_balance; 404.
 */
export async function launchDisbursement(core: Core, caller: Caller, id: string, opts: RunOptions = {}): Promise<Disbursement> {
  const wire = await core.db.transaction().execute(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    const status = row.status as DisbursementStatus;
    assertCanApply(status, 'launch');
    const agg = await itemAggregates(tx, id);
    if (agg.needsReview > 0) throw itemsNeedReview(agg.needsReview);
    if (agg.itemCount === 0) throw new ApiError(409, 'invalid_state', 'The disbursement has no items', null);
    const required = await approvalsRequired(tx, row.business_id);
    if (required > 0) {
      const received = await approvalsReceived(tx, id, row.revision_id);
      if (received < required || row.approved_revision_id !== row.revision_id) {
        throw approvalRequired(received, required, status !== 'ready');
      }
    }
    await applyLaunchPolicy(tx, core, caller, id);
    const total = agg.readyDebit;
    try {
      await post(tx, {
        businessId: row.business_id,
        environment: row.environment,
        key: `disbursement:${id}:hold:${row.revision_id}`,
        from: 'available',
        to: 'held',
        amount: total,
        refusedWhenPayoutsBlocked: true,
      });
    } catch (err) {
      if (err instanceof InsufficientFundsError) {
        throw insufficientBalance(total, (await getBalance(tx, row.business_id, row.environment)).available);
      }
      throw err;
    }
    const now = core.now();
    await queueReadyItems(tx, id, now);
    const updated = await updateDisbursement(tx, id, {
        status: 'processing',
        launched_at: now,
        launched_by_key_id: caller.keyId,
        launched_revision_id: row.revision_id,
        updated_at: now,
      });
    const out = await loadDisbursement(tx, updated);
    await emitEvent(tx, disbursementLaunchedEvent({ businessId: row.business_id, environment: row.environment }, DISBURSEMENT_EVENT_ON_ENTER.processing, out));
    await enqueueWorkflowStart(tx, disbursementStart(updated, opts));
    await recordAuditEvent(
      tx,
      { businessId: row.business_id, environment: row.environment, ...callerActor(caller), action: 'disbursement.launched', objectType: 'disbursement', objectId: id, before: { status: row.status, revision_id: row.revision_id }, after: { status: updated.status, launched_revision_id: updated.launched_revision_id, held: String(total) } },
      core.now(),
    );
    return out;
  });
  try {
    await flushWorkflowStart(core, id);
  } catch (err) {
    core.log.warn({ err, disbursementId: id }, 'disbursement workflow start deferred to the relay');
  }
  return wire;
}

async function signal(core: Core, id: string, sig: DisbursementSignal): Promise<void> {
  try {
    await signalDisbursementRun(core.temporal, id, sig); // no run yet: it reads the projection when it starts
  } catch (err) {
    core.log.warn({ err, disbursementId: id }, 'disbursement signal failed; the workflow re-reads the projection');
  }
}

/** {@link signalWithStart} after commit; on failure logs and leaves the run to recoverDisbursementRuns. */
async function signalWithStartAfterCommit(core: Core, row: DisbursementRow, sig: DisbursementSignal): Promise<void> {
  try {
    await signalWithStart(core, row, sig);
  } catch (err) {
    core.log.warn({ err, disbursementId: row.id }, 'disbursement signal-with-start failed; the relay restarts the run');
  }
}

/** Signals the workflow, starting a new run (claims numbered after earlier ones) if none is running. */
export async function signalWithStart(core: Core, row: DisbursementRow, sig: DisbursementSignal): Promise<void> {
  const max = await core.db
    .selectFrom('disbursement_items')
    .select((eb) => eb.fn.max('claim_seq').as('m'))
    .where('disbursement_id', '=', row.id)
    .executeTakeFirst();
  const start = disbursementStart(row);
  await signalWithStartDisbursementRun(core.temporal, core.config, {
    disbursementId: row.id,
    input: workflowInput(row, { paused: row.status === 'paused', claimSeq: Number(max?.m ?? -1) + 1 }),
    signal: sig,
    searchAttributes: { ...start.searchAttributes, DisbursementStatus: row.status },
  });
}

/**
 * `POST /disbursements/{id}/pause`: processing -> paused, then signals the workflow: no new item
 * starts; payouts in flight finish. 409 invalid_state otherwise; 404.
 */
export async function pauseDisbursement(core: Core, caller: Caller, id: string): Promise<Disbursement> {
  const wire = await core.db.transaction().execute(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    assertCanApply(row.status as DisbursementStatus, 'pause');
    const now = core.now();
    const updated = await updateDisbursement(tx, id, { status: 'paused', paused_at: now, updated_at: now });
    await recordAuditEvent(
      tx,
      { businessId: row.business_id, environment: row.environment, ...callerActor(caller), action: 'disbursement.paused', objectType: 'disbursement', objectId: id, before: { status: row.status }, after: { status: updated.status } },
      core.now(),
    );
    return loadDisbursement(tx, updated);
  });
  await signal(core, id, 'pause');
  return wire;
}

/** `POST /disbursements/{id}/resume`: paused -> processing, then signals the workflow. 409 invalid_state otherwise; 404. */
export async function resumeDisbursement(core: Core, caller: Caller, id: string): Promise<Disbursement> {
  const { wire, row } = await core.db.transaction().execute(async (tx) => {
    const r = await findRow(tx, caller, id, true);
    assertCanApply(r.status as DisbursementStatus, 'resume');
    const updated = await updateDisbursement(tx, id, { status: 'processing', paused_at: null, updated_at: core.now() });
    await recordAuditEvent(
      tx,
      { businessId: r.business_id, environment: r.environment, ...callerActor(caller), action: 'disbursement.resumed', objectType: 'disbursement', objectId: id, before: { status: r.status }, after: { status: updated.status } },
      core.now(),
    );
    return { wire: await loadDisbursement(tx, updated), row: updated };
  });
  await signalWithStartAfterCommit(core, row, 'resume');
  return wire;
}

/**
 * `POST /disbursements/{id}/items/retry-failed`: each retryable or corrected failed item is held again
 * (`disbursement_item:{item}:retry:{n}:hold`) and made pending, and the workflow signalled.
 * 409 invalid_state / approval_required; 402 insufficient_balance; 404.
 */
export async function retryFailedItems(core: Core, caller: Caller, id: string): Promise<Disbursement> {
  const { wire, row } = await core.db.transaction().execute(async (tx) => {
    const r = await findRow(tx, caller, id, true);
    const status = r.status as DisbursementStatus;
    assertCanApply(status, 'retry_failed');
    const required = await approvalsRequired(tx, r.business_id);
    if (required > 0 && r.approved_revision_id !== r.revision_id) {
      throw approvalRequired(await approvalsReceived(tx, id, r.revision_id), required, true);
    }
    const candidates = await retryCandidates(tx, id);
    if (candidates.length === 0 && status !== 'completed_with_failures') {
      // Items queued by an earlier retry whose signal was lost: signal again (below).
      const queued = await itemAggregates(tx, id);
      if (queued.pending > 0) return { wire: await loadDisbursement(tx, r), row: r };
    }
    if (candidates.length === 0) {
      throw new ApiError(
        409,
        'invalid_state',
        `No failed item can be retried: only failures with a retryable code (${RETRYABLE_FAILURE_CODES.join(', ')}) or items corrected since they failed are retried`,
        null,
        { status },
      );
    }
    const total = candidates.reduce((s, c) => s + c.debitTotal, 0n);
    const balance = await getBalance(tx, r.business_id, r.environment);
    if (balance.available < total) throw insufficientBalance(total, balance.available);
    const now = core.now();
    for (const c of candidates) {
      const attempt = c.attempt + 1;
      try {
        await post(tx, {
          businessId: r.business_id,
          environment: r.environment,
          key: `disbursement_item:${c.id}:retry:${attempt}:hold`,
          from: 'available',
          to: 'held',
          amount: c.debitTotal,
          refusedWhenPayoutsBlocked: true,
        });
      } catch (err) {
        if (err instanceof InsufficientFundsError) throw insufficientBalance(total, balance.available);
        throw err;
      }
    }
    const ids = candidates.map((c) => c.id);
    for (let i = 0; i < ids.length; i += 1000) {
      await requeueItems(tx, ids.slice(i, i + 1000), now);
    }
    const updated = await updateDisbursement(tx, id, {
        status: status === 'completed_with_failures' ? 'processing' : status,
        retry_round: r.retry_round + 1,
        completed_at: null,
        updated_at: now,
      });
    return { wire: await loadDisbursement(tx, updated), row: updated };
  });
  await signalWithStartAfterCommit(core, row, 'retryFailed');
  return wire;
}
