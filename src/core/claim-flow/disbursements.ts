/**
 * Surface B disbursements (spec "Endpoints", Surface B: POST/GET /disbursements,
 * GET /disbursements/:id) over the one payout core: a disbursement IS a claim-link payout
 * (createPayout on channel `claim_link`), so its hold, 30-day claim window, claim page, refunds,
 * events and workflow are the core's. Nothing here copies the payout core.
 */
import type { ClaimDisbursement } from '../../domain/claim-disbursements';
import { ApiError, notFound } from '../../domain/errors';
import type { Caller, Core } from '../context';
import { createPayout, getPayoutRow, type PayoutRow } from '../payouts';
import { type ClaimEntryInput, renameCoreParam, validateClaimEntry } from './entry';
import { type ClaimStatus, claimStatusWhere } from './status';
import { claimDisbursementView } from './view';
import { scoped } from '../tenancy';

/**
 * `POST /disbursements`: validates (validateClaimEntry), then creates the claim-link payout
 * (hold of amount + fees, event payout.submitted -> disbursement.created, workflow started after
 * commit). Returns the disbursement. With an idempotency key (the core's form, in Surface B's
 * namespace: src/domain/idempotency-keys.ts) already used for a disbursement, returns
 * that one (the API's idempotency middleware answers replays before this; this is the crash-safe
 * backstop). Errors: those of validateClaimEntry, 402 insufficient_balance, 400
 * channel_unavailable (live). No maximum: priced with `noMaximum` (spec "Limits").
 */
export async function createClaimDisbursement(
  core: Core,
  caller: Caller,
  input: ClaimEntryInput,
  opts: { idempotencyKey?: string } = {},
): Promise<ClaimDisbursement> {
  const entry = validateClaimEntry(input);
  let created: { id: string };
  try {
    created = await createPayout(core, caller, entry.request, opts.idempotencyKey ? { idempotencyKey: opts.idempotencyKey } : {});
  } catch (err) {
    renameCoreParam(err);
  }
  return claimDisbursementView(await getPayoutRow(core.db, caller, created.id), core.config.publicUrl);
}

/** The caller's claim-link payout `id`; 404 `not_found` (param `id`) for any other id (unknown, another tenant's, not a claim link). */
export async function getClaimDisbursementRow(core: Core, caller: Caller, id: string): Promise<PayoutRow> {
  const row = await scoped(core.db, caller)
    .selectFrom('payouts')
    .selectAll()
    .where('id', '=', id)
    .where('channel', '=', 'claim_link')
    .executeTakeFirst();
  if (!row) throw notFound('disbursement', id);
  return row;
}

/** `GET /disbursements/{id}`: the caller's claim-link payout as a disbursement; 404 `not_found` (param `id`) otherwise. */
export async function getClaimDisbursement(core: Core, caller: Caller, id: string): Promise<ClaimDisbursement> {
  return claimDisbursementView(await getClaimDisbursementRow(core, caller, id), core.config.publicUrl);
}

/** Filters and page of `GET /disbursements` (spec: status, reference, batchId, limit, after). */
export interface ListClaimDisbursementsQuery {
  status?: ClaimStatus;
  reference?: string;
  batchId?: string;
  limit: number;
  /** Opaque cursor: `nextCursor` of the previous page. */
  after?: string;
}

const encode = (id: string) => Buffer.from(JSON.stringify({ a: id })).toString('base64url');
function decode(cursor: string): string {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof v?.a === 'string') return v.a;
  } catch {
    // fall through
  }
  throw new ApiError(400, 'validation_error', 'after is not a valid cursor; pass nextCursor from a previous page', 'after');
}

/**
 * `GET /disbursements`: the caller's claim-link payouts, newest first, filtered by Surface B status
 * (claimStatusWhere), exact reference and batchId; `limit` 1..200 per page after the cursor
 * `after`. 400 `validation_error` (param `after`) for a cursor we did not issue.
 */
export async function listClaimDisbursements(
  core: Core,
  caller: Caller,
  q: ListClaimDisbursementsQuery,
): Promise<{ data: ClaimDisbursement[]; nextCursor: string | null }> {
  let query = scoped(core.db, caller)
    .selectFrom('payouts')
    .selectAll()
    .where('channel', '=', 'claim_link');
  if (q.status) query = query.where(claimStatusWhere(q.status));
  if (q.reference !== undefined) query = query.where('reference', '=', q.reference);
  if (q.batchId !== undefined) query = query.where('claim_batch_id', '=', q.batchId);
  if (q.after) query = query.where('id', '<', decode(q.after));
  const rows = await query.orderBy('id', 'desc').limit(q.limit + 1).execute();
  const more = rows.length > q.limit;
  const page = more ? rows.slice(0, q.limit) : rows;
  return { data: page.map((r) => claimDisbursementView(r, core.config.publicUrl)), nextCursor: more ? encode(page[page.length - 1].id) : null };
}
