/** Creating a disbursement and importing its items from CSV (spec POST /disbursements, POST /disbursements/{id}/items/import). */
import type { Updateable } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import type { DisbursementsTable, ReviewReason } from '../../db/tables/disbursements';
import { channelAcceptsRecipientType, findChannel, RECIPIENT_TYPES, type RecipientType } from '../../domain/channels';
import { assertCanApply, type DisbursementStatus, draftingStatus } from '../../domain/disbursement-state';
import { ApiError, validationError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { lazyPackage } from '../../lazy-package';
import type { Disbursement, DisbursementItemInput } from '../../domain/disbursements';
import type { Caller, Core } from '../context';
import { MAX_ITEMS, MAX_NAME_LENGTH, MAX_CSV_BYTES, type DisbursementRow } from './shared';
import { type Draft, reviewDrafts, insertItems } from './review';
import { retentionCutoff } from '../idempotency-retention';
import { itemAggregates, loadDisbursement, findRow } from './read';
import { insertDisbursement, retireExpiredDisbursementIdempotencyKey, updateDisbursement } from './disbursement-store';
import { scoped } from '../tenancy';

const csvParse = lazyPackage<typeof import('csv-parse/sync')>('csv-parse/sync');

/**
 * `POST /disbursements`: creates a disbursement with up to {@link MAX_ITEMS} items (an empty list
 * is allowed: items can be imported from CSV afterwards). Every item is reviewed before anything is
 * stored; the status is draft / needs_review / ready. One transaction, items inserted in chunks.
 * 400 validation_error: blank or long name (`name`), more than 5,000 items (`items`).
 * With an idempotency key that already created a disbursement, returns that one.
 */
export async function createDisbursement(
  core: Core,
  caller: Caller,
  input: { name: string; items?: DisbursementItemInput[] },
  opts: { idempotencyKey?: string } = {},
): Promise<Disbursement> {
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (!name) throw validationError('name', 'name is required');
  if (name.length > MAX_NAME_LENGTH) throw validationError('name', `name must be at most ${MAX_NAME_LENGTH} characters`);
  const items = input.items ?? [];
  if (items.length > MAX_ITEMS) {
    throw validationError('items', `A disbursement has at most ${MAX_ITEMS} items; got ${items.length}`);
  }
  if (opts.idempotencyKey) {
    const existing = await scoped(core.db, caller)
      .selectFrom('disbursements')
      .selectAll()
      .where('idempotency_key', '=', opts.idempotencyKey)
      .where('created_at', '>=', retentionCutoff(core.now()))
      .executeTakeFirst();
    if (existing) return loadDisbursement(core.db, existing);
  }
  const reviewed = await reviewDrafts(
    core,
    caller,
    items.map((it, i) => ({ input: it, rowNumber: null, source: 'api', prefix: `items.${i}.` })),
  );
  const id = newId('dsb');
  const now = core.now();
  const needsReview = reviewed.filter((r) => r.status === 'needs_review').length;
  return core.db.transaction().execute(async (tx) => {
    // A key older than the 30-day retention starts a new disbursement (src/core/idempotency-retention.ts).
    if (opts.idempotencyKey) await retireExpiredDisbursementIdempotencyKey(tx, caller, opts.idempotencyKey, now);
    const row = await insertDisbursement(tx, {
        id,
        business_id: caller.businessId,
        environment: caller.environment,
        name,
        status: draftingStatus({ items: reviewed.length, needsReview }),
        revision_id: newId('rev'),
        revision_number: 1,
        revision_created_by_key_id: caller.keyId,
        approved_revision_id: null,
        launched_revision_id: null,
        created_by_key_id: caller.keyId,
        submitted_by_key_id: null,
        submitted_at: null,
        launched_by_key_id: null,
        idempotency_key: opts.idempotencyKey ?? null,
        item_count: reviewed.length,
        retry_round: 0,
        last_rejection_reason: null,
        rejected_at: null,
        launched_at: null,
        paused_at: null,
        completed_at: null,
        created_at: now,
        updated_at: now,
    });
    await insertItems(tx, caller, id, reviewed, 1, now);
    return loadDisbursement(tx, row);
  });
}

/** Optional CSV columns (spec "CSV formats"), plus `channel` (extension). */
const CSV_COLUMNS = [
  'recipient',
  'amount',
  'memo',
  'reference',
  'type',
  'channel',
  'pagomovil_bank_code',
  'pagomovil_national_id',
  'pagomovil_holder_name',
  'pagomovil_dob',
] as const;

/** Default channel of each recipient type in a CSV row without a channel (the type's only channel). */
const DEFAULT_CHANNEL: Partial<Record<RecipientType, string>> = {
  phone: 'claim_link',
  email: 'claim_link',
  pagomovil: 'pagomovil_ves',
  wallet: 'stellar_usdc',
  service_user: 'service_user_usdc',
};

/** Recipient type of a CSV row without a `type`: from the pagomovil columns or the recipient's shape. */
function inferType(recipient: string, row: Record<string, string>): RecipientType | null {
  if (['pagomovil_bank_code', 'pagomovil_national_id', 'pagomovil_holder_name', 'pagomovil_dob'].some((c) => row[c])) {
    return 'pagomovil';
  }
  if (recipient.startsWith('+')) return 'phone';
  if (recipient.startsWith('@')) return 'service_user';
  if (recipient.includes('@')) return 'email';
  if (/^G[A-Z2-7]{55}$/.test(recipient)) return 'wallet';
  return null;
}

/** One CSV record as an item draft (docs/disbursements.md "CSV import"). */
function csvDraft(row: Record<string, string>, lineNumber: number, formChannel: string | undefined): Draft {
  const v = (k: string) => {
    const s = row[k];
    return typeof s === 'string' && s.trim() !== '' ? s.trim() : undefined;
  };
  const input: DisbursementItemInput = { extra: { csv: row } };
  const preReasons: ReviewReason[] = [];
  const recipient = v('recipient');
  const channel = v('channel') ?? formChannel;
  if (v('amount') !== undefined) input.sourceAmount = v('amount');
  if (v('reference') !== undefined) input.reference = v('reference');
  if (v('memo') !== undefined) input.memo = v('memo');
  if (!recipient) {
    preReasons.push({ code: 'validation_error', message: `Line ${lineNumber}: recipient is required`, param: 'recipient' });
    return { input: { ...input, ...(channel ? { channel } : {}) }, rowNumber: lineNumber, source: 'csv', prefix: '', preReasons };
  }
  if (recipient.startsWith('rcp_')) {
    input.recipientId = recipient;
    if (channel) input.channel = channel;
    return { input, rowNumber: lineNumber, source: 'csv', prefix: '', inferChannel: true };
  }
  const given = v('type');
  const type = (given ?? inferType(recipient, row)) as RecipientType | null;
  if (!type || !(RECIPIENT_TYPES as readonly string[]).includes(type)) {
    preReasons.push({
      code: 'validation_error',
      message: given
        ? `Line ${lineNumber}: type must be one of ${RECIPIENT_TYPES.join(', ')}`
        : `Line ${lineNumber}: cannot tell the recipient type of '${recipient}'; add a type column`,
      param: 'type',
    });
  } else if (type === 'bank_account') {
    preReasons.push({
      code: 'validation_error',
      message: `Line ${lineNumber}: bank_account rows must name a saved recipient (rcp_…) in the recipient column`,
      param: 'recipient',
    });
  }
  let inline: Record<string, unknown> = { type: type ?? given };
  switch (type) {
    case 'phone':
      inline = { type, number: recipient };
      break;
    case 'email':
      inline = { type, address: recipient };
      break;
    case 'wallet':
      inline = { type, network: 'stellar', address: recipient };
      break;
    case 'service_user':
      inline = { type, handle: recipient };
      break;
    case 'pagomovil':
      inline = {
        type,
        phone_number: recipient,
        ...(v('pagomovil_bank_code') ? { bank_code: v('pagomovil_bank_code') } : {}),
        ...(v('pagomovil_national_id') ? { national_id: v('pagomovil_national_id') } : {}),
        ...(v('pagomovil_holder_name') ? { holder_name: v('pagomovil_holder_name') } : {}),
        ...(v('pagomovil_dob') ? { date_of_birth: v('pagomovil_dob') } : {}),
      };
      break;
    default:
      inline = { type: type ?? given ?? null, identifier: recipient };
  }
  input.recipient = inline;
  // The form's channel is the default when it pays this type; else the type's only channel.
  const rowChannel = v('channel');
  const form = formChannel ? findChannel(formChannel) : undefined;
  const formFits = !form || !type || !(RECIPIENT_TYPES as readonly string[]).includes(type) || channelAcceptsRecipientType(form, type);
  const ch = rowChannel ?? (formChannel && formFits ? formChannel : undefined) ?? (type ? DEFAULT_CHANNEL[type] : undefined);
  if (ch) input.channel = ch;
  return { input, rowNumber: lineNumber, source: 'csv', prefix: '', ...(preReasons.length ? { preReasons } : {}) };
}

/**
 * Parses an item CSV (csv-parse; spec "CSV formats"). Header row required (case-insensitive; unknown
 * columns ignored); recipient and amount columns required (400 validation_error, param `file`).
 * A record the parser cannot read (e.g. more fields than the header) becomes a draft needing review
 * with reason `csv_parse_error` and its line number; empty lines are skipped.
 */
export function parseItemsCsv(text: string, formChannel?: string): Draft[] {
  const drafts: Draft[] = [];
  let header: string[] = [];
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = csvParse().parse<(typeof records)[number]>(text, {
      bom: true,
      columns: (h: string[]) => {
        header = h.map((c) => String(c).trim().toLowerCase());
        return header;
      },
      info: true,
      skip_empty_lines: true,
      relax_quotes: true,
      relax_column_count_less: true,
      skip_records_with_error: true,
      on_skip: (err: { message?: string; lines?: number } | undefined) => {
        const line = err?.lines ?? 0;
        drafts.push({
          input: {},
          rowNumber: line,
          source: 'csv',
          prefix: '',
          preReasons: [{ code: 'csv_parse_error', message: `Line ${line}: ${err?.message ?? 'unreadable record'}`, param: null }],
        });
      },
    });
  } catch (err) {
    throw validationError('file', `The CSV file cannot be read: ${(err as Error).message}`);
  }
  if (header.length === 0) throw validationError('file', 'The CSV file is empty; it needs a header row with recipient and amount');
  for (const required of ['recipient', 'amount']) {
    if (!header.includes(required)) {
      throw validationError('file', `The CSV header lacks the required column '${required}' (columns: ${CSV_COLUMNS.join(', ')})`);
    }
  }
  for (const r of records) drafts.push(csvDraft(r.record, r.info.lines, formChannel));
  return drafts.sort((a, b) => (a.rowNumber ?? 0) - (b.rowNumber ?? 0));
}

/** The columns of `row`'s next revision, created by the caller's key: a patch for updateDisbursement. */
export function newRevision(row: DisbursementRow, caller: Caller): Pick<Updateable<DisbursementsTable>, 'revision_id' | 'revision_number' | 'revision_created_by_key_id'> {
  return { revision_id: newId('rev'), revision_number: row.revision_number + 1, revision_created_by_key_id: caller.keyId };
}

/** Recomputes the drafting status from the items (inside the transaction). */
export async function recountDrafting(tx: DbOrTx, id: string): Promise<DisbursementStatus> {
  const agg = await itemAggregates(tx, id);
  return draftingStatus({ items: agg.itemCount, needsReview: agg.needsReview });
}

/**
 * `POST /disbursements/{id}/items/import`: appends the rows of a CSV file (parseItemsCsv) to a
 * drafting disbursement, each reviewed like a JSON item; a new revision. 413 payload_too_large
 * above {@link MAX_CSV_BYTES}; 400 validation_error (`file`) for an unreadable file or more than
 * 5,000 items in all; 409 invalid_state unless drafting; 404 for an unknown disbursement.
 */
export async function importItems(
  core: Core,
  caller: Caller,
  id: string,
  file: { text: string; size: number },
  opts: { channel?: string } = {},
): Promise<Disbursement> {
  if (file.size > MAX_CSV_BYTES) {
    throw new ApiError(413, 'payload_too_large', `The CSV file is larger than ${MAX_CSV_BYTES} bytes`, 'file');
  }
  const before = await findRow(core.db, caller, id);
  assertCanApply(before.status as DisbursementStatus, 'import');
  const drafts = parseItemsCsv(file.text, opts.channel?.trim() || undefined);
  if (before.item_count + drafts.length > MAX_ITEMS) {
    throw validationError('file', `A disbursement has at most ${MAX_ITEMS} items; it has ${before.item_count} and the file adds ${drafts.length}`);
  }
  const reviewed = await reviewDrafts(core, caller, drafts);
  const now = core.now();
  return core.db.transaction().execute(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    assertCanApply(row.status as DisbursementStatus, 'import');
    if (row.item_count + reviewed.length > MAX_ITEMS) {
      throw validationError('file', `A disbursement has at most ${MAX_ITEMS} items; it has ${row.item_count} and the file adds ${reviewed.length}`);
    }
    await insertItems(tx, caller, id, reviewed, row.item_count + 1, now);
    const status = await recountDrafting(tx, id);
    const updated = await updateDisbursement(tx, id, { item_count: row.item_count + reviewed.length, status, updated_at: now, ...(reviewed.length ? newRevision(row, caller) : {}) });
    return loadDisbursement(tx, updated);
  });
}
