/**
 * `npm run admin -- rail ... --json` (docs/rails.md "For operators"): the core's operator reads are
 * camelCase with bigint minor units and Dates; the CLI prints snake_case rows, minor units as
 * decimal strings and ISO 8601 times.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queueInstruction } from '../../src/core/rails/instructions';
import { getRailFile, listRailFiles, listUnmatchedRailItems } from '../../src/core/rails/operators';
import { recordRailEvents } from '../../src/core/rails/rail-events';
import type { Db } from '../../src/db/schema';
import { runRailCommand } from '../../src/main/admin-rails';
import { freshDatabase } from '../helpers/fresh-database';

let db: Db;
let close: () => Promise<void>;
const at = new Date('2026-11-25T09:00:00.000Z');

beforeAll(async () => {
  ({ db, close } = await freshDatabase());
  await db
    .insertInto('rail_files')
    .values({
      id: 'rf_out', rail: 'ach', direction: 'outbound', name: 'ach-1.txt', message_id: 'M1', kind: 'nacha', status: 'uploaded', sha256: 'abc',
      bytes: 10, content: 'FILE', transactions: 1, control_sum_minor: 123456789012345678n, execution_date: '2026-11-26', window_key: null,
      settlement_window: 'same_day', settles_at: new Date('2026-11-26T21:00:00.000Z'), settled_at: null, error: null, created_at: at, updated_at: at,
    })
    .execute();
  await queueInstruction(
    db,
    {
      payout_id: 'po_1', attempt: 1, rail: 'ach', business_id: 'biz_1', end_to_end_id: 'po_1-1', uetr: null, trace_number: '091000010000001',
      details: null, amount_minor: 123456789012345678n, currency: 'USD', creditor_name: 'Ana', creditor_iban: null, creditor_bic: null, remittance: null,
    },
    at,
  );
  await db.updateTable('rail_instructions').set({ rail_file_id: 'rf_out', status: 'in_file' }).execute();
  await recordRailEvents(
    db,
    [
      { id: 'rf_out:0', rail: 'ach', rail_file_id: 'rf_out', type: 'returned', payout_id: 'po_1', attempt: 1, deposit_id: null, end_to_end_id: 'po_1-1', uetr: null, reason_code: 'R03', occurred_at: at, details: {} },
      { id: 'rf_out:1', rail: 'ach', rail_file_id: 'rf_out', type: 'returned', payout_id: null, attempt: null, deposit_id: null, end_to_end_id: 'nobody', uetr: null, reason_code: 'R01', occurred_at: null, details: { trace: 'x' } },
    ],
    at,
  );
}, 60_000);

afterAll(async () => {
  await close?.();
});

async function printed(sub: string, id?: string): Promise<unknown> {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    expect(await runRailCommand(db, sub, id, true)).toBe(0);
    return JSON.parse(String(log.mock.calls[0]![0]));
  } finally {
    log.mockRestore();
  }
}

describe('operator reads of bank files', () => {
  it('the core returns bigint minor units and Dates', async () => {
    const [file] = await listRailFiles(db);
    expect(file).toMatchObject({ id: 'rf_out', controlSumMinor: 123456789012345678n, executionDate: '2026-11-26', settlesAt: new Date('2026-11-26T21:00:00.000Z'), createdAt: at });
    const detail = await getRailFile(db, 'rf_out');
    expect(detail!.payments).toEqual([{ payoutId: 'po_1', attempt: 1, endToEndId: 'po_1-1', uetr: null, traceNumber: '091000010000001', amountMinor: 123456789012345678n, status: 'in_file' }]);
    expect((await listUnmatchedRailItems(db)).map((r) => [r.id, r.railFileId, r.reasonCode])).toEqual([['rf_out:1', 'rf_out', 'R01']]);
    expect(await getRailFile(db, 'rf_missing')).toBeNull();
  });

  it('rail file <id> --json prints the file, its payments and statuses in snake_case, amounts as decimal strings', async () => {
    // Compared as text: the keys in the order the CLI always printed them.
    expect(JSON.stringify(await printed('file', 'rf_out'))).toBe(JSON.stringify({
      id: 'rf_out', rail: 'ach', direction: 'outbound', name: 'ach-1.txt', kind: 'nacha', status: 'uploaded', transactions: 1,
      control_sum_minor: '123456789012345678', execution_date: '2026-11-26', settlement_window: 'same_day', settles_at: '2026-11-26T21:00:00.000Z',
      settled_at: null, sha256: 'abc', error: null, created_at: '2026-11-25T09:00:00.000Z', content: 'FILE',
      payments: [{ payout_id: 'po_1', attempt: 1, end_to_end_id: 'po_1-1', uetr: null, trace_number: '091000010000001', amount_minor: '123456789012345678', status: 'in_file' }],
      statuses: [
        { id: 'rf_out:0', type: 'returned', payout_id: 'po_1', deposit_id: null, end_to_end_id: 'po_1-1', reason_code: 'R03', occurred_at: '2026-11-25T09:00:00.000Z', dispatched_at: null },
        { id: 'rf_out:1', type: 'returned', payout_id: null, deposit_id: null, end_to_end_id: 'nobody', reason_code: 'R01', occurred_at: null, dispatched_at: null },
      ],
    }));
  });

  it('rail unmatched --json lists the status that matched nothing; an unknown file exits 1', async () => {
    expect(JSON.stringify(await printed('unmatched'))).toBe(JSON.stringify([
      { id: 'rf_out:1', rail: 'ach', rail_file_id: 'rf_out', type: 'returned', end_to_end_id: 'nobody', uetr: null, reason_code: 'R01', details: { trace: 'x' }, created_at: '2026-11-25T09:00:00.000Z' },
    ]));
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(await runRailCommand(db, 'file', 'rf_missing', true)).toBe(1);
      expect(err).toHaveBeenCalledWith('rail file rf_missing not found');
    } finally {
      err.mockRestore();
    }
  });
});
