/**
 * Settlement account statements (docs/treasury.md): the owner of treasury_statements,
 * treasury_statement_entries and treasury_breaks. Names no rail and parses no format: a
 * connection's rail module declares its settlement account and statement format, recognises its
 * statements and parses them (src/rails/adapter.ts `RailStatementParts`).
 */
import { sql } from 'kysely';
import { newId } from '../../domain/ids';
import type { ParsedStatement, StatementFormat } from '../../rails/adapter';
import { statementPartsOf } from '../../rails/registry';
import { parseDuration } from '../../domain/durations';
import type { Core } from '../context';
import { railFiles } from '../metrics/registry';
import { markInboundProcessed, markInboundQuarantined, type RailFileRow } from '../rails/files';
import { expectedMovements } from './expected';
import { type FoundBreak, reconcileAccount, type Reconciliation } from './reconcile';

export type { StatementFormat } from '../../rails/adapter';

/** The statement format of `file` when its connection has a settlement account and the content is of it; else null. */
export function statementFormatOf(file: Pick<RailFileRow, 'rail' | 'content'>): StatementFormat | null {
  const parts = statementPartsOf(file.rail);
  return parts && parts.recognises(file.content ?? '') ? parts.format : null;
}

/**
 * The inbox poll's statement hook: reads, records (once per file) and reconciles a statement; a
 * statement that does not parse or is of another account is quarantined. Null for other files.
 */
export async function processStatementFile(core: Core, file: Pick<RailFileRow, 'id' | 'rail' | 'name' | 'content'>): Promise<{ events: number; quarantined: boolean } | null> {
  const statements = statementPartsOf(file.rail);
  const format = statementFormatOf(file);
  if (!statements || !format) return null;
  const now = core.now();
  let read: ParsedStatement;
  try {
    read = statements.read(file.content ?? '', core.config);
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    await markInboundQuarantined(core.db, file.id, error, now);
    railFiles.inc({ rail: file.rail, direction: 'inbound', outcome: 'quarantined' });
    core.log.error({ rail: file.rail, fileId: file.id, name: file.name, format, error }, 'bank statement quarantined: it does not parse or is not of our settlement account');
    return { events: 0, quarantined: true };
  }
  const recorded = await core.db.transaction().execute(async (tx) => {
    const locked = await tx.selectFrom('rail_files').select('status').where('id', '=', file.id).forUpdate().skipLocked().executeTakeFirst();
    if (!locked || locked.status !== 'received') return false;
    const id = newId('stm', now.getTime());
    const inserted = await tx
      .insertInto('treasury_statements')
      .values({
        id,
        rail: file.rail,
        account_id: read.accountId,
        currency: read.currency,
        format,
        rail_file_id: file.id,
        statement_ref: read.statementRef,
        sequence_number: read.sequence,
        statement_date: read.statementDate,
        period_start: read.periodStart,
        period_end: read.periodEnd,
        opening_minor: read.openingMinor,
        closing_minor: read.closingMinor,
        entries: read.entries.length,
        books_position_minor: null,
        in_transit_minor: null,
        reconciled_at: null,
        created_at: now,
      })
      .onConflict((oc) => oc.columns(['rail', 'account_id', 'statement_ref']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (inserted && read.entries.length > 0) {
      await tx
        .insertInto('treasury_statement_entries')
        .values(
          read.entries.map((e, i) => ({
            id: `${id}:${i}`,
            statement_id: id,
            rail: file.rail,
            position: i,
            credit_debit: e.creditDebit,
            amount_minor: e.amountMinor,
            currency: read.currency,
            type_code: e.typeCode,
            reference: e.reference,
            match_keys: JSON.stringify(e.keys),
            booked_on: e.bookedOn,
            description: e.description?.slice(0, 500) ?? null,
            matched_key: null,
            created_at: now,
          })),
        )
        .execute();
    }
    if (!inserted) core.log.warn({ rail: file.rail, fileId: file.id, statementRef: read.statementRef }, 'bank statement already recorded from another file; not recorded twice');
    await markInboundProcessed(tx, file.id, { kind: format, messageId: read.statementRef, transactions: read.entries.length }, now);
    return true;
  });
  if (!recorded) return { events: 0, quarantined: false };
  railFiles.inc({ rail: file.rail, direction: 'inbound', outcome: 'received' });
  await reconcileSettlementAccount(core, file.rail);
  return { events: 0, quarantined: false };
}

export interface AccountReconciliation {
  rail: string;
  statements: number;
  matched: number;
  opened: FoundBreak[];
  resolved: number;
  open: number;
}

/**
 * Reconciles the settlement account of `rail` and records the outcome (entry matches, breaks opened
 * once per kind and key, breaks no longer found resolved). Idempotent; an advisory lock per rail
 * serialises concurrent workers.
 */
export async function reconcileSettlementAccount(core: Core, rail: string): Promise<AccountReconciliation> {
  const graceMs = parseDuration(core.config.TREASURY_BOOKS_ONLY_GRACE);
  const parts = statementPartsOf(rail);
  return core.db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${`treasury:${rail}`}))`.execute(tx);
    const now = core.now();
    const statements = await tx.selectFrom('treasury_statements').selectAll().where('rail', '=', rail).orderBy('period_end').execute();
    const result: AccountReconciliation = { rail, statements: statements.length, matched: 0, opened: [], resolved: 0, open: 0 };
    if (statements.length === 0 || !parts) return result;
    const entries = await tx
      .selectFrom('treasury_statement_entries')
      .selectAll()
      .where('rail', '=', rail)
      .orderBy('statement_id')
      .orderBy('position')
      .execute();
    const first = statements[0];
    const anchor = first.period_start ?? first.period_end;
    const expected = await expectedMovements(tx, rail, parts, anchor);
    const views = statements.map((s) => ({
      id: s.id,
      sequence: s.sequence_number === null ? null : BigInt(s.sequence_number),
      periodEnd: s.period_end,
      openingMinor: BigInt(s.opening_minor),
      closingMinor: BigInt(s.closing_minor),
      entries: entries
        .filter((e) => e.statement_id === s.id)
        .map((e) => ({ id: e.id, creditDebit: e.credit_debit, amountMinor: BigInt(e.amount_minor), keys: e.match_keys, reference: e.reference, description: e.description })),
    }));
    const r: Reconciliation = reconcileAccount({ statements: views, expected, graceMs, anchor });
    for (const e of entries) {
      const key = r.matches.get(e.id) ?? null;
      if (key !== e.matched_key) await tx.updateTable('treasury_statement_entries').set({ matched_key: key }).where('id', '=', e.id).execute();
    }
    result.matched = r.matches.size;
    const account = { account_id: statements[statements.length - 1].account_id, currency: statements[statements.length - 1].currency };
    const open = await tx.selectFrom('treasury_breaks').select(['id', 'kind', 'break_key']).where('rail', '=', rail).where('status', '=', 'open').execute();
    const found = new Set(r.breaks.map((b) => `${b.kind}|${b.key}`));
    for (const b of r.breaks) {
      const values = {
        statement_id: b.statementId,
        entry_id: b.entryId,
        reference: b.reference,
        bank_amount_minor: b.bankAmountMinor,
        books_amount_minor: b.booksAmountMinor,
        difference_minor: b.differenceMinor,
        detail: b.detail,
        updated_at: now,
      };
      const row = await tx
        .insertInto('treasury_breaks')
        .values({ id: newId('tbr', now.getTime()), rail, ...account, kind: b.kind, break_key: b.key, status: 'open', opened_at: now, resolved_at: null, ...values })
        .onConflict((oc) =>
          oc.columns(['rail', 'kind', 'break_key']).doUpdateSet((eb) => ({
            ...values,
            status: 'open',
            resolved_at: null,
            // A break found again after it was resolved opens again, from now.
            opened_at: sql<Date>`case when ${eb.ref('treasury_breaks.status')} = 'resolved' then ${now} else ${eb.ref('treasury_breaks.opened_at')} end`,
          })),
        )
        .returning(['opened_at'])
        .executeTakeFirstOrThrow();
      if (row.opened_at.getTime() === now.getTime()) result.opened.push(b);
    }
    const gone = open.filter((b) => !found.has(`${b.kind}|${b.break_key}`)).map((b) => b.id);
    if (gone.length > 0) await tx.updateTable('treasury_breaks').set({ status: 'resolved', resolved_at: now, updated_at: now }).where('id', 'in', gone).execute();
    result.resolved = gone.length;
    result.open = r.breaks.length;
    if (r.position) {
      await tx
        .updateTable('treasury_statements')
        .set({ books_position_minor: r.position.booksMinor, in_transit_minor: r.position.inTransitMinor, reconciled_at: now })
        .where('id', '=', r.position.statementId)
        .execute();
    }
    for (const b of result.opened) {
      core.log.error({ rail, kind: b.kind, key: b.key, reference: b.reference, differenceMinor: b.differenceMinor.toString(), detail: b.detail }, 'settlement account reconciliation break (docs/operations.md "Reconciliation break")');
    }
    return result;
  });
}

/** Reconciles after an inbox poll that read files; a failure is logged, never thrown (the next poll retries). */
export async function reconcileAfterPoll(core: Core, rail: string): Promise<void> {
  try {
    const any = await core.db.selectFrom('treasury_statements').select('id').where('rail', '=', rail).limit(1).executeTakeFirst();
    if (any) await reconcileSettlementAccount(core, rail);
  } catch (err) {
    core.log.warn({ err, rail }, 'settlement account reconciliation failed after a poll; the next poll tries again');
  }
}
