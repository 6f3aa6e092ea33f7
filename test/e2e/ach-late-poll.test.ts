/**
 * A late ACH poll (docs/rails.md "ACH" step 4; found by `npm run chaos`): whether a return came
 * before or after settlement is decided by when the bank put its file on the server, not by when a
 * poll read it. One sent after the entry's settlement time, read before the sweep recorded that
 * settlement, refunds (the settlement is recorded first, ordered before the return, and the sweep
 * does not record it twice); one sent before it but read after it (a stalled poller) fails, also
 * when it went up after the poll listed the outbox (the sweep settles only what was due at the
 * listing).
 * Core-level, on the real database and parser: no poller, no SFTP (the return file is the test
 * bank's answer to the file the service composed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeAchFile } from '../../src/rails/ach/file';
import { processAchInboundFile, settleDueAchFiles } from '../../src/rails/ach/inbox';
import { recordInboundFile } from '../../src/core/rails/files';
import { railHost } from '../../src/core/rails/host';
import { fileRecord, instructionRecord } from '../../src/core/rails/records';
import { ACH_RAIL } from '../../src/rails/ach/config';
import { answerNacha } from '../../tools/test-bank/ach-answers';
import { testAchConfig } from '../helpers/ach-config';
import { createHarness, type Harness } from '../helpers/harness';

const config = testAchConfig({ batchWindowMs: 1000, pollIntervalMs: 1000, returnWindowMs: 60_000, settleAfterMs: 2000 });

let h: Harness;

beforeAll(async () => {
  h = await createHarness({ worker: false });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

/** One uploaded ACH file with one entry to `accountNumber`, settling at `settlesAt`; returns its ids and text. */
async function uploadedEntry(n: number, accountNumber: string, settlesAt: Date) {
  const now = new Date();
  const row = {
    payout_id: `po_01m8d0000000000000000000${String(n).padStart(2, '0')}`,
    attempt: 1,
    rail: ACH_RAIL,
    business_id: 'biz_late',
    end_to_end_id: `po-01m8d0000000000000000000${String(n).padStart(2, '0')}-1`,
    uetr: null,
    trace_number: `09100001${String(9_000_000 + n).padStart(7, '0')}`,
    details: { routing_number: '021000021', account_number: accountNumber, account_type: 'checking', sec_code: 'PPD' },
    amount_minor: 2000n,
    currency: 'USD',
    creditor_name: 'Lee Late',
    creditor_iban: null,
    creditor_bic: null,
    remittance: null,
    status: 'in_file' as const,
    rail_file_id: `rf_01m8d0000000000000000000${String(n).padStart(2, '0')}`,
    payment_information_id: null,
    created_at: now,
    updated_at: now,
  };
  const file = composeAchFile(config, [instructionRecord({ ...row, status: 'queued', rail_file_id: null })], now, row.rail_file_id);
  await h.db.insertInto('rail_instructions').values({ ...row, details: JSON.stringify(row.details) }).execute();
  await h.db
    .insertInto('rail_files')
    .values({
      id: row.rail_file_id, rail: ACH_RAIL, direction: 'outbound', name: file.name, message_id: file.messageId, kind: 'nacha', status: 'uploaded',
      sha256: null, bytes: file.content.length, content: file.content, transactions: 1, control_sum_minor: 2000n, execution_date: file.executionDate,
      window_key: `ach:late:${n}`, settlement_window: file.settlementWindow, settles_at: settlesAt, settled_at: null, error: null, created_at: now, updated_at: now,
    })
    .execute();
  return { row, file };
}

describe('a late ACH poll', () => {
  it('a return read after the settlement time, before the sweep: settled first, then returned (refund), flagged late; the sweep adds nothing', async () => {
    const { row, file } = await uploadedEntry(1, '9990000202', new Date(Date.now() - 5000));
    const answers = answerNacha(file.content, file.name, new Date());
    const late = answers.find((a) => a.when === 'late')!;
    const inbound = await recordInboundFile(h.core, ACH_RAIL, late.name, Buffer.from(late.text));
    // The bank put it on its server a second ago: after the settlement time (5 s ago).
    await processAchInboundFile(railHost(h.core, ACH_RAIL), config, fileRecord(inbound), new Date(Date.now() - 1000));
    const events = await h.db.selectFrom('rail_events').selectAll().where('payout_id', '=', row.payout_id).orderBy('created_at').orderBy('id').execute();
    expect(events.map((e) => [e.type, e.reason_code])).toEqual([
      ['settled', null],
      ['returned', 'R02'],
    ]);
    expect(events[1]!.details).toMatchObject({ late: true });
    expect((await h.db.selectFrom('rail_instructions').select('status').where('payout_id', '=', row.payout_id).executeTakeFirstOrThrow()).status).toBe('returned');
    await settleDueAchFiles(railHost(h.core, ACH_RAIL), ACH_RAIL);
    expect(await h.db.selectFrom('rail_events').select('id').where('payout_id', '=', row.payout_id).execute()).toHaveLength(2);
  });

  it('a return read before the settlement time is a rejection (the payout fails), and the sweep then settles nothing of it', async () => {
    const { row, file } = await uploadedEntry(2, '9990000103', new Date(Date.now() + 60_000));
    const now = answerNacha(file.content, file.name, new Date()).find((a) => a.when === 'now')!;
    const inbound = await recordInboundFile(h.core, ACH_RAIL, now.name, Buffer.from(now.text));
    await processAchInboundFile(railHost(h.core, ACH_RAIL), config, fileRecord(inbound), new Date());
    await h.db.updateTable('rail_files').set({ settles_at: new Date(Date.now() - 1) }).where('id', '=', row.rail_file_id).execute();
    await settleDueAchFiles(railHost(h.core, ACH_RAIL), ACH_RAIL);
    const events = await h.db.selectFrom('rail_events').selectAll().where('payout_id', '=', row.payout_id).execute();
    expect(events.map((e) => [e.type, e.reason_code])).toEqual([['rejected', 'R03']]);
    expect((await h.db.selectFrom('rail_instructions').select('status').where('payout_id', '=', row.payout_id).executeTakeFirstOrThrow()).status).toBe('rejected');
  });

  it('a return the bank sent before the settlement time but a stalled poller reads after it still fails the payout; the sweep then settles nothing of it', async () => {
    const settlesAt = new Date(Date.now() - 10_000);
    const { row, file } = await uploadedEntry(3, '9990000103', settlesAt);
    const early = answerNacha(file.content, file.name, new Date()).find((a) => a.when === 'now')!;
    const inbound = await recordInboundFile(h.core, ACH_RAIL, early.name, Buffer.from(early.text));
    await processAchInboundFile(railHost(h.core, ACH_RAIL), config, fileRecord(inbound), new Date(settlesAt.getTime() - 2000));
    await settleDueAchFiles(railHost(h.core, ACH_RAIL), ACH_RAIL);
    const events = await h.db.selectFrom('rail_events').selectAll().where('payout_id', '=', row.payout_id).execute();
    expect(events.map((e) => [e.type, e.reason_code])).toEqual([['rejected', 'R03']]);
  });

  it('a return the bank published after the poll listed its outbox, before the settlement time: that poll does not settle the entry, the next one reads the return and the payout fails', async () => {
    // The poll listed the outbox 3 s ago, before the settlement time (2 s ago); its sweep runs now.
    const settlesAt = new Date(Date.now() - 2000);
    const { row, file } = await uploadedEntry(4, '9990000101', settlesAt);
    expect(await settleDueAchFiles(railHost(h.core, ACH_RAIL), ACH_RAIL, new Date(settlesAt.getTime() - 1000))).toBe(0);
    // The R01 went up half a second before the settlement time, after that listing: the next poll reads it.
    const early = answerNacha(file.content, file.name, new Date()).find((a) => a.when === 'now')!;
    const inbound = await recordInboundFile(h.core, ACH_RAIL, early.name, Buffer.from(early.text));
    await processAchInboundFile(railHost(h.core, ACH_RAIL), config, fileRecord(inbound), new Date(settlesAt.getTime() - 500));
    expect(await settleDueAchFiles(railHost(h.core, ACH_RAIL), ACH_RAIL, new Date())).toBe(0);
    const events = await h.db.selectFrom('rail_events').selectAll().where('payout_id', '=', row.payout_id).execute();
    expect(events.map((e) => [e.type, e.reason_code])).toEqual([['rejected', 'R01']]);
    expect((await h.db.selectFrom('rail_instructions').select('status').where('payout_id', '=', row.payout_id).executeTakeFirstOrThrow()).status).toBe('rejected');
  });
});
