/**
 * Screening cases (docs/screening.md "Holding payouts"; owner of `screening_cases`): a payout held
 * for an operator's decision, the four-eyes rule, an audit record per act and the payout's events.
 * Signalling the payout's workflow is the caller's, after COMMIT.
 */
import { sql } from 'kysely';
import type { Config } from '../../config';
import type { Db, DbOrTx, Environment } from '../../db/schema';
import { payoutScreeningEvent } from '../../domain/domain-events';
import { newId } from '../../domain/ids';
import type { Payout } from '../../domain/payouts';
import { type AuditActor, recordAuditEvent } from '../audit';
import type { RequestSource } from '../context';
import { emitEvent } from '../events';
import { payoutFromRow, type PayoutRow } from '../payouts';
import { payoutScreeningOf, type ScreeningCaseRow } from './case-view';
import { screeningCasesTotal, screeningReviewQueueOldest } from './metrics';
import type { ScreeningHit } from './service';

export type ScreeningCaseKind = 'sanctions' | 'name_mismatch';
export type ScreeningCaseStatus = 'open' | 'in_review' | 'released' | 'rejected';

/** One hit as a case keeps it. */
export type CaseHit = Pick<ScreeningHit, 'list' | 'entryId' | 'entryName' | 'matchedName' | 'score' | 'reason'>;

/** A screening case. Times are instants; `reviewer` and `decidedBy` are operator ids (`user@host`) or `system`. */
export interface ScreeningCase {
  id: string;
  businessId: string;
  environment: Environment;
  subjectType: 'payout';
  subjectId: string;
  kind: ScreeningCaseKind;
  screeningId: string | null;
  hits: CaseHit[];
  summary: string;
  status: ScreeningCaseStatus;
  openedAt: Date;
  reviewer: string | null;
  reviewedAt: Date | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  decisionReason: string | null;
}

/** What the case functions need from the core (the admin CLI builds it without a Core). */
export interface CaseContext {
  db: Db;
  now: () => Date;
  config: Pick<Config, 'publicUrl'>;
}

/** An operator act refused: `not_found`, `four_eyes` (release by the reviewer), `not_in_review` (release before `open`), `conflict` (already decided otherwise, or in another's review). */
export class ScreeningCaseError extends Error {
  constructor(
    readonly code: 'not_found' | 'four_eyes' | 'not_in_review' | 'conflict',
    message: string,
  ) {
    super(message);
    this.name = 'ScreeningCaseError';
  }
}

/** The best hits of a screening as a case keeps them. */
export const caseHits = (hits: readonly ScreeningHit[]): CaseHit[] =>
  hits.map((h) => ({ list: h.list, entryId: h.entryId, entryName: h.entryName, matchedName: h.matchedName, score: h.score, reason: h.reason }));

function fromRow(r: ScreeningCaseRow): ScreeningCase {
  return {
    id: r.id,
    businessId: r.business_id,
    environment: r.environment,
    subjectType: 'payout',
    subjectId: r.subject_id,
    kind: r.kind as ScreeningCaseKind,
    screeningId: r.screening_id,
    hits: r.hits as unknown as CaseHit[],
    summary: r.summary,
    status: r.status as ScreeningCaseStatus,
    openedAt: r.opened_at,
    reviewer: r.reviewer,
    reviewedAt: r.reviewed_at,
    decidedBy: r.decided_by,
    decidedAt: r.decided_at,
    decisionReason: r.decision_reason,
  };
}

/** The case of payout `payoutId`, if any (one per payout). */
export async function caseOfPayout(db: DbOrTx, payoutId: string): Promise<ScreeningCase | undefined> {
  const r = await db.selectFrom('screening_cases').selectAll().where('subject_type', '=', 'payout').where('subject_id', '=', payoutId).executeTakeFirst();
  return r && fromRow(r);
}

/** The case `id`; throws ScreeningCaseError `not_found`. */
export async function getScreeningCase(db: DbOrTx, id: string): Promise<ScreeningCase> {
  const r = await db.selectFrom('screening_cases').selectAll().where('id', '=', id).executeTakeFirst();
  if (!r) throw new ScreeningCaseError('not_found', `no screening case ${id}`);
  return fromRow(r);
}

/** The queue: cases in `statuses` (default open and in review), oldest first, at most `limit` (default 100). */
export async function listScreeningCases(db: DbOrTx, opts: { statuses?: ScreeningCaseStatus[]; limit?: number } = {}): Promise<ScreeningCase[]> {
  const rows = await db
    .selectFrom('screening_cases')
    .selectAll()
    .where('status', 'in', opts.statuses ?? ['open', 'in_review'])
    .orderBy('opened_at')
    .orderBy('id')
    .limit(opts.limit ?? 100)
    .execute();
  return rows.map(fromRow);
}

const payoutWithCase = (ctx: CaseContext, payout: PayoutRow, c: ScreeningCaseRow): Payout => ({
  ...payoutFromRow(payout, ctx.config.publicUrl),
  screening: payoutScreeningOf(c),
});

const owner = (p: Pick<PayoutRow, 'business_id' | 'environment'>) => ({ businessId: p.business_id, environment: p.environment });

/** What a new case records. */
export interface NewCase {
  kind: ScreeningCaseKind;
  screeningId: string;
  hits: CaseHit[];
  summary: string;
}

/**
 * Opens the case of `payout` (or returns the one it has: one case per payout) and, when new, emits
 * `payout.screening_review` in the same transaction.
 */
export async function openPayoutCase(ctx: CaseContext, payout: PayoutRow, c: NewCase): Promise<ScreeningCase> {
  const created = await ctx.db.transaction().execute(async (tx) => {
    const row = await insertCase(tx, ctx.now(), payout, c, { status: 'open' });
    if (row) await emitEvent(tx, payoutScreeningEvent(owner(payout), 'payout.screening_review', payoutWithCase(ctx, payout, row), row.id));
    return row;
  });
  if (created) screeningCasesTotal.inc({ kind: c.kind, decision: 'opened' });
  return created ? fromRow(created) : (await caseOfPayout(ctx.db, payout.id))!;
}

/** Records a confirmed match as a case already `rejected` by `system` for `reason` (the business sees it), with its audit record; returns the payout's case. */
export async function recordSystemRejection(ctx: CaseContext, payout: PayoutRow, c: NewCase, reason: string): Promise<ScreeningCase> {
  const now = ctx.now();
  const created = await ctx.db.transaction().execute(async (tx) => {
    const row = await insertCase(tx, now, payout, c, { status: 'rejected', decided_by: 'system', decided_at: now, decision_reason: reason });
    if (row) await audit(tx, row, { type: 'system', id: 'screening' }, null, 'screening_case.rejected', null, now);
    return row;
  });
  if (created) screeningCasesTotal.inc({ kind: c.kind, decision: 'rejected' });
  return created ? fromRow(created) : (await caseOfPayout(ctx.db, payout.id))!;
}

async function insertCase(
  tx: DbOrTx,
  now: Date,
  payout: PayoutRow,
  c: NewCase,
  state: { status: ScreeningCaseStatus; decided_by?: string; decided_at?: Date; decision_reason?: string },
): Promise<ScreeningCaseRow | undefined> {
  return tx
    .insertInto('screening_cases')
    .values({
      id: newId('scc', now.getTime()),
      business_id: payout.business_id,
      environment: payout.environment,
      subject_type: 'payout',
      subject_id: payout.id,
      kind: c.kind,
      screening_id: c.screeningId,
      hits: JSON.stringify(c.hits),
      summary: c.summary,
      opened_at: now,
      reviewer: null,
      reviewed_at: null,
      decided_by: null,
      decided_at: null,
      decision_reason: null,
      ...state,
    })
    .onConflict((oc) => oc.columns(['subject_type', 'subject_id']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

async function audit(tx: DbOrTx, row: ScreeningCaseRow, actor: AuditActor, source: RequestSource | null, action: string, before: ScreeningCaseRow | null, now: Date) {
  const view = (r: ScreeningCaseRow) => ({ status: r.status, kind: r.kind, payout_id: r.subject_id, reviewer: r.reviewer, decided_by: r.decided_by, reason: r.decision_reason });
  await recordAuditEvent(
    tx,
    { businessId: row.business_id, environment: row.environment, actor, source, action, objectType: 'screening_case', objectId: row.id, before: before && view(before), after: view(row) },
    now,
  );
}

/** An operator acting on a case: the audit actor (`operator`, id) and the request source. */
export interface CaseOperator {
  id: string;
  source?: RequestSource | null;
}

async function lockCase(tx: DbOrTx, id: string): Promise<ScreeningCaseRow> {
  const r = await tx.selectFrom('screening_cases').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  if (!r) throw new ScreeningCaseError('not_found', `no screening case ${id}`);
  return r;
}

/** `open`: takes case `id` into review (status `in_review`, reviewer = the operator), audited; again by the same reviewer changes nothing. Throws `conflict` when decided or in another's review. */
export async function takeCaseForReview(ctx: CaseContext, id: string, op: CaseOperator): Promise<ScreeningCase> {
  return ctx.db.transaction().execute(async (tx) => {
    const before = await lockCase(tx, id);
    if (before.status === 'in_review' && before.reviewer === op.id) return fromRow(before);
    if (before.status !== 'open') {
      throw new ScreeningCaseError('conflict', `case ${id} is ${before.status}${before.reviewer ? ` (reviewer ${before.reviewer})` : ''}`);
    }
    const now = ctx.now();
    const row = await tx
      .updateTable('screening_cases')
      .set({ status: 'in_review', reviewer: op.id, reviewed_at: now })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await audit(tx, row, { type: 'operator', id: op.id }, op.source ?? null, 'screening_case.review_started', before, now);
    return fromRow(row);
  });
}

/**
 * Records an operator's decision on case `id` with its audit record, and on release emits
 * `payout.screening_released`, in one transaction. Four eyes: a release needs the case in review
 * and an operator other than its reviewer; a rejection may be by anyone (refusing is the safe
 * direction). A case already decided the same way changes nothing (`changed: false`), so the caller
 * can send the signal again. Throws ScreeningCaseError `not_found`, `four_eyes`, `not_in_review`, `conflict`.
 */
export async function decideCase(
  ctx: CaseContext,
  id: string,
  op: CaseOperator,
  decision: 'released' | 'rejected',
  reason: string,
): Promise<{ case: ScreeningCase; changed: boolean }> {
  const result = await ctx.db.transaction().execute(async (tx) => {
    const before = await lockCase(tx, id);
    if (before.status === decision) return { row: before, changed: false };
    if (before.status === 'released' || before.status === 'rejected') {
      throw new ScreeningCaseError('conflict', `case ${id} is already ${before.status} by ${before.decided_by}`);
    }
    if (decision === 'released') {
      if (before.status !== 'in_review') throw new ScreeningCaseError('not_in_review', `case ${id} is not in review: an operator opens it first (screening review open), another releases it`);
      if (before.reviewer === op.id) throw new ScreeningCaseError('four_eyes', `four eyes: ${op.id} opened case ${id} for review, so another operator must release it`);
    }
    const now = ctx.now();
    const row = await tx
      .updateTable('screening_cases')
      .set({ status: decision, decided_by: op.id, decided_at: now, decision_reason: reason })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await audit(tx, row, { type: 'operator', id: op.id }, op.source ?? null, `screening_case.${decision}`, before, now);
    if (decision === 'released') {
      const payout = await tx.selectFrom('payouts').selectAll().where('id', '=', row.subject_id).executeTakeFirst();
      if (payout) await emitEvent(tx, payoutScreeningEvent(owner(payout), 'payout.screening_released', payoutWithCase(ctx, payout, row), row.id));
    }
    return { row, changed: true };
  });
  if (result.changed) screeningCasesTotal.inc({ kind: result.row.kind, decision });
  return { case: fromRow(result.row), changed: result.changed };
}

/** Sets `screening_review_queue_oldest_seconds` at scrape time (0 when no case waits). */
export async function refreshScreeningQueueGauge(db: DbOrTx): Promise<void> {
  const r = await db
    .selectFrom('screening_cases')
    .select(sql<Date | null>`min(opened_at)`.as('oldest'))
    .where('status', 'in', ['open', 'in_review'])
    .executeTakeFirst();
  const oldest = r?.oldest ? new Date(r.oldest).getTime() : null;
  screeningReviewQueueOldest.set(oldest === null ? 0 : Math.max(0, Math.floor((Date.now() - oldest) / 1000)));
}
