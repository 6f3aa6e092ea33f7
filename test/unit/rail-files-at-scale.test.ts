/**
 * Bank files at scale (docs/rails.md "Bank files at scale"): a window over the bank's limit
 * (RAIL_<RAIL>_MAX_FILE_TRANSACTIONS) becomes several files, each valid by the independent
 * validators (the official XSD; achlens for NACHA), each instruction in exactly one; a streamed
 * 10,000-entry camt.054 and a 10,000-entry NACHA return file are matched and dispatched once per
 * entry, and read again change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import type { Core } from '../../src/core/context';
import { createLogger } from '../../src/core/logging';
import { dispatchRailEvents } from '../../src/core/rails/inbox';
import { recordInboundFile } from '../../src/core/rails/files';
import type { InstructionRow } from '../../src/core/rails/instructions';
import { fileRecord, instructionRecord } from '../../src/core/rails/records';
import { railHost } from '../../src/core/rails/host';
import { collectOutboundFile } from '../../src/core/rails/outbound';
import type { Db } from '../../src/db/schema';
import { ACH_RAIL, achRailConfig } from '../../src/rails/ach/config';
import { composeAchFile } from '../../src/rails/ach/file';
import { processAchInboundFile } from '../../src/rails/ach/inbox';
import { parseCamt054, writeCamt054 } from '../../src/rails/iso20022/camt054';
import { streamCamt054 } from '../../src/rails/iso20022/camt054-stream';
import { parsePain001 } from '../../src/rails/iso20022/pain001';
import { validateIso20022 } from '../../src/rails/iso20022/validate';
import { Iso20022ParseError } from '../../src/rails/iso20022/xml';
import { parseNachaFile } from '../../src/rails/nacha';
import { sepaEndToEndId, sepaUetr } from '../../src/rails/sepa/adapter';
import { SEPA_RAIL } from '../../src/rails/sepa/config';
import { readSepaInboundFile } from '../../src/rails/sepa/module';
import type { TemporalClient } from '../../src/temporal/client';
import { achBenchRows, sepaBenchRows } from '../../tools/bench/rails';
import { answerNacha } from '../../tools/test-bank/ach-answers';
import { skipWithoutNachaValidator, validateNacha } from '../../tools/nacha/validator';
import { TEST_BANK_DEBTOR } from '../../tools/test-bank/bank';
import { freshDatabase } from '../helpers/fresh-database';
import { sandboxAdapters } from '../../src/sandbox/adapters';
import { createScreeningServices } from '../../src/core/screening/service';

const ENV = {
  RAIL_SEPA_SFTP_HOST: '127.0.0.1',
  RAIL_SEPA_SFTP_USER: 'bank',
  RAIL_SEPA_SFTP_KEY_PATH: '/dev/null',
  RAIL_SEPA_SFTP_HOST_KEY: 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  RAIL_SEPA_DEBTOR_NAME: TEST_BANK_DEBTOR.name,
  RAIL_SEPA_DEBTOR_IBAN: TEST_BANK_DEBTOR.iban,
  RAIL_SEPA_DEBTOR_BIC: TEST_BANK_DEBTOR.bic,
  RAIL_SEPA_MAX_FILE_TRANSACTIONS: '3',
  RAIL_ACH_SFTP_HOST: '127.0.0.1',
  RAIL_ACH_SFTP_USER: 'bank',
  RAIL_ACH_SFTP_KEY_PATH: '/dev/null',
  RAIL_ACH_SFTP_HOST_KEY: 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  RAIL_ACH_ODFI_ROUTING: '091000019',
  RAIL_ACH_COMPANY_ID: '1463201458',
  RAIL_ACH_MAX_FILE_TRANSACTIONS: '3',
};

let db: Db;
let close: () => Promise<void>;
let signals: Array<{ payoutId: string; type: string }>;
let core: Core;

beforeAll(async () => {
  ({ db, close } = await freshDatabase());
  signals = [];
  const temporal = {
    withDeadline: <T>(_deadline: number, fn: () => Promise<T>) => fn(),
    workflow: { getHandle: (payoutId: string) => ({ signal: async (_s: unknown, e: { type: string }) => void signals.push({ payoutId, type: e.type }) }) },
  } as unknown as TemporalClient;
  core = { db, temporal, config: loadConfig({ ...process.env, ...ENV }), log: createLogger({ level: 'silent' }), now: () => new Date('2026-11-25T09:00:00Z'), sandbox: sandboxAdapters(), screening: createScreeningServices(db, {}) };
}, 60_000);

afterAll(async () => {
  await close?.();
});

async function queue(rows: InstructionRow[]): Promise<void> {
  await db
    .insertInto('rail_instructions')
    .values(rows.map((r, i) => ({ ...r, details: r.details ? JSON.stringify(r.details) : null, created_at: new Date(Date.UTC(2026, 10, 25, 8, 0, i)) })))
    .execute();
}

/** Collects like railWindowWorkflow does: again and again until nothing is queued. */
async function collectWindow(rail: string): Promise<string[]> {
  const files: string[] = [];
  for (;;) {
    const { fileId } = await collectOutboundFile(core, rail, `${rail}:1:${files.length}`);
    if (!fileId) return files;
    files.push(fileId);
  }
}

describe('a window over the bank limit', () => {
  it('becomes several pain.001 files, each valid against the official XSD, each instruction in exactly one', async () => {
    const rows = sepaBenchRows(7);
    await queue(rows);
    const ids = await collectWindow(SEPA_RAIL);
    expect(ids).toHaveLength(3);
    const carried: string[] = [];
    for (const id of ids) {
      const f = await db.selectFrom('rail_files').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(await validateIso20022(f.content!, 'pain.001.001.09'), f.name).toEqual({ valid: true, errors: [] });
      const parsed = parsePain001(f.content!);
      const e2e = parsed.payments.flatMap((p) => p.transfers.map((t) => t.endToEndId));
      expect(e2e.length).toBeLessThanOrEqual(3);
      expect(parsed.numberOfTransactions).toBe(String(e2e.length));
      carried.push(...e2e);
      const inFile = await db.selectFrom('rail_instructions').select('end_to_end_id').where('rail_file_id', '=', id).execute();
      expect(inFile.map((r) => r.end_to_end_id).sort()).toEqual([...e2e].sort());
    }
    expect(carried.sort()).toEqual(rows.map((r) => r.end_to_end_id).sort());
  }, 60_000);

  it.skipIf(skipWithoutNachaValidator('test/unit/rail-files-at-scale.test.ts'))(
    'becomes several NACHA files, each accepted by the independent validator (achlens), each entry in exactly one',
    async () => {
      const rows = achBenchRows(7);
      await queue(rows);
      const ids = await collectWindow(ACH_RAIL);
      expect(ids).toHaveLength(3);
      const traces: string[] = [];
      for (const id of ids) {
        const f = await db.selectFrom('rail_files').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        expect(await validateNacha(f.content!), f.name).toEqual({ valid: true, errors: [] });
        const entries = parseNachaFile(f.content!).batches.flatMap((b) => b.entries.map((e) => e.traceNumber));
        expect(entries.length).toBeLessThanOrEqual(3);
        traces.push(...entries);
      }
      expect(traces.sort()).toEqual(rows.map((r) => r.trace_number!).sort());
    },
    120_000,
  );
});

describe('the streamed camt.054 reader', () => {
  const entry = (i: number, extra: Record<string, unknown> = {}) => ({
    creditDebit: 'DBIT' as const,
    status: 'BOOK' as const,
    bookingDate: '2026-11-25',
    amountMinor: String(100 + i),
    currency: 'EUR',
    endToEndId: `E2E-${i}`,
    uetr: '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
    accountServicerReference: `ASR-${i}`,
    ...extra,
  });

  it('reads every entry as the tree parser does, in batches', async () => {
    const xml = writeCamt054({
      messageId: 'CAMT-1',
      createdAt: new Date('2026-11-25T10:00:00Z'),
      notificationId: 'N-1',
      accountIban: TEST_BANK_DEBTOR.iban,
      entries: [
        entry(0),
        entry(1, { creditDebit: 'CRDT', returnReasonCode: 'AC04', debtorName: 'Jane & Co', remittanceInformation: 'Invoice <7>' }),
        entry(2, { creditDebit: 'CRDT', endToEndId: null, uetr: null, creditorIban: 'DE02370400440999000001', debtorName: 'Sender', additionalEntryInfo: 'fee' }),
        entry(3, { reversal: true, status: 'PDNG', bookingDate: '2026-11-25T10:00:00Z' }),
      ],
    });
    const batches: number[] = [];
    const streamed: unknown[] = [];
    const read = await streamCamt054(xml, async (header, entries) => {
      expect(header).toEqual({ messageId: 'CAMT-1', createdAt: '2026-11-25T10:00:00Z', accountIban: TEST_BANK_DEBTOR.iban });
      batches.push(entries.length);
      streamed.push(...entries);
    }, 3);
    expect(read.entries).toBe(4);
    expect(batches).toEqual([3, 1]);
    expect(streamed).toEqual(parseCamt054(xml).entries);
  });

  it('reads entries as the tree parser does past its cache of 1,024 element names (3,000 extra element names ahead of the first entry fields)', async () => {
    const xml = writeCamt054({
      messageId: 'CAMT-2',
      createdAt: new Date('2026-11-25T10:00:00Z'),
      notificationId: 'N-2',
      accountIban: TEST_BANK_DEBTOR.iban,
      entries: Array.from({ length: 30 }, (_, i) => entry(i, { creditDebit: i % 2 ? 'CRDT' : 'DBIT', returnReasonCode: i % 2 ? 'AC04' : null })),
    });
    // Before the first entry's fields, so every real path is first met with the cache full.
    const extras = Array.from({ length: 1500 }, (_, n) => `<X${n}><Y${n}>v</Y${n}></X${n}>`).join('');
    const noisy = xml.replace('<Amt Ccy=', `${extras}<Amt Ccy=`);
    expect(noisy.length).toBeGreaterThan(xml.length);
    const streamed: unknown[] = [];
    await streamCamt054(noisy, async (_header, entries) => {
      streamed.push(...entries);
    }, 7);
    expect(streamed).toEqual(parseCamt054(xml).entries);
  });

  it('refuses a DOCTYPE, another namespace, malformed XML and an entry without an amount', async () => {
    const ok = writeCamt054({ messageId: 'M', createdAt: new Date(), notificationId: 'N', accountIban: TEST_BANK_DEBTOR.iban, entries: [entry(0)] });
    const none = async () => undefined;
    await expect(streamCamt054(ok.replace('<Document', '<!DOCTYPE x [<!ENTITY e "x">]><Document'), none)).rejects.toThrow(/DOCTYPE/);
    await expect(streamCamt054(ok.replace('camt.054.001.08', 'camt.054.001.02'), none)).rejects.toThrow(/wrong namespace/);
    await expect(streamCamt054(ok.replace('</Ntry>', ''), none)).rejects.toThrow(Iso20022ParseError);
    await expect(streamCamt054(ok.replace(/<Amt Ccy="EUR">1.00<\/Amt>\s*<CdtDbtInd>DBIT<\/CdtDbtInd>\s*<Sts>/, '<CdtDbtInd>DBIT</CdtDbtInd><Sts>'), none)).rejects.toThrow(/Ntry\[0\]\/Amt is missing/);
  });

  it('a 10,000-entry camt.054 is matched and dispatched once per entry; read again, nothing more', async () => {
    const withIds = sepaBenchRows(10_000).map((r) => {
      const payoutId = r.payout_id.replace('sepabench', 'camt');
      return { ...r, payout_id: payoutId, end_to_end_id: sepaEndToEndId(payoutId, 1), uetr: sepaUetr(payoutId, 1), status: 'in_file' as const };
    });
    for (let i = 0; i < withIds.length; i += 1000) await queue(withIds.slice(i, i + 1000));
    const xml = writeCamt054({
      messageId: 'CAMT-10K',
      createdAt: new Date('2026-11-25T10:00:00Z'),
      notificationId: 'N-10K',
      accountIban: TEST_BANK_DEBTOR.iban,
      entries: withIds.map((r, i) => ({
        creditDebit: 'DBIT' as const,
        status: 'BOOK' as const,
        bookingDate: '2026-11-25',
        entryReference: `NTRY-${i}`,
        accountServicerReference: `BANKREF-${i}`,
        amountMinor: r.amount_minor.toString(),
        currency: 'EUR',
        endToEndId: r.end_to_end_id,
        uetr: r.uetr,
        creditorName: r.creditor_name,
        creditorIban: r.creditor_iban,
        remittanceInformation: r.remittance,
      })),
    });
    expect(Buffer.byteLength(xml)).toBeGreaterThan(10 * 1024 * 1024);
    const host = railHost(core, SEPA_RAIL);
    const file = await recordInboundFile(core, SEPA_RAIL, 'camt054_10k.xml', Buffer.from(xml));
    expect(await readSepaInboundFile(host, fileRecord(file))).toEqual({ events: 10_000, quarantined: false });
    const events = await db.selectFrom('rail_events').select(['payout_id', 'type']).where('rail_file_id', '=', file.id).execute();
    expect(events).toHaveLength(10_000);
    expect(new Set(events.map((e) => e.payout_id))).toEqual(new Set(withIds.map((r) => r.payout_id)));
    expect(events.every((e) => e.type === 'settled')).toBe(true);
    const advanced = await db.selectFrom('rail_instructions').select('status').where('payout_id', 'like', 'po_camt%').execute();
    expect(advanced.every((r) => r.status === 'settled')).toBe(true);

    expect(await dispatchRailEvents(core, SEPA_RAIL)).toEqual({ dispatched: 10_000, left: 0 });
    expect(signals).toHaveLength(10_000);
    expect(new Set(signals.map((s) => s.payoutId)).size).toBe(10_000);

    // The same file read again (a second worker, a retried poll): nothing recorded, nothing dispatched.
    const again = await recordInboundFile(core, SEPA_RAIL, 'camt054_10k.xml', Buffer.from(xml));
    expect(again.id).toBe(file.id);
    expect(await readSepaInboundFile(host, fileRecord(again))).toEqual({ events: 0, quarantined: false });
    expect(await dispatchRailEvents(core, SEPA_RAIL)).toEqual({ dispatched: 0, left: 0 });
    expect(signals).toHaveLength(10_000);
  }, 180_000);

  it('a 10,000-entry NACHA return file is matched and dispatched once per entry: settled first where the file had settled, else rejected; read again, nothing more', async () => {
    const now = core.now();
    const sentFile = (id: string, settlesAt: Date) => ({
      id, rail: ACH_RAIL, direction: 'outbound' as const, name: `${id}.ach`, message_id: id, kind: 'nacha', status: 'uploaded' as const, sha256: null, bytes: 0, content: null,
      transactions: 5_000, control_sum_minor: null, execution_date: '2026-11-20', window_key: null, settlement_window: null,
      settles_at: settlesAt, settled_at: null, error: null, created_at: now, updated_at: now,
    });
    await db.insertInto('rail_files').values([sentFile('rf_achsettled', new Date(now.getTime() - 86_400_000)), sentFile('rf_achpending', new Date(now.getTime() + 86_400_000))]).execute();
    const rows = achBenchRows(10_000).map((r, i) => {
      const payoutId = r.payout_id.replace('achbench', 'achret');
      const trace = `${r.trace_number!.slice(0, 8)}${String(100_000 + i).padStart(7, '0')}`; // past the first test's
      return { ...r, payout_id: payoutId, end_to_end_id: sepaEndToEndId(payoutId, 1), trace_number: trace, status: 'in_file' as const, rail_file_id: i % 2 ? 'rf_achpending' : 'rf_achsettled' };
    });
    for (let i = 0; i < rows.length; i += 1000) await queue(rows.slice(i, i + 1000));
    const upload = composeAchFile(achRailConfig(core.config).config!, rows.map(instructionRecord), now, 'rf_achupload');
    const answer = answerNacha(upload.content, upload.name, now).find((f) => f.when === 'now')!;
    expect(parseNachaFile(answer.text).batches.flatMap((b) => b.entries)).toHaveLength(10_000);
    const host = railHost(core, ACH_RAIL);
    const ach = achRailConfig(core.config).config!;
    const file = await recordInboundFile(core, ACH_RAIL, answer.name, Buffer.from(answer.text));
    signals.length = 0;
    expect(await processAchInboundFile(host, ach, fileRecord(file))).toEqual({ events: 10_000, quarantined: false });

    const statuses = await db.selectFrom('rail_instructions').select(['payout_id', 'rail_file_id', 'status']).where('payout_id', 'like', 'po_achret%').execute();
    expect(statuses).toHaveLength(10_000);
    expect(statuses.every((r) => r.status === (r.rail_file_id === 'rf_achsettled' ? 'returned' : 'rejected'))).toBe(true);
    const settledFirst = await db.selectFrom('rail_events').select('payout_id').where('rail_file_id', '=', 'rf_achsettled').where('type', '=', 'settled').execute();
    expect(settledFirst).toHaveLength(5_000);

    expect(await dispatchRailEvents(core, ACH_RAIL)).toEqual({ dispatched: 15_000, left: 0 });
    const byPayout = new Map<string, string[]>();
    for (const s of signals) byPayout.set(s.payoutId, [...(byPayout.get(s.payoutId) ?? []), s.type]);
    expect(byPayout.size).toBe(10_000);
    for (const r of rows) expect(byPayout.get(r.payout_id)).toEqual(r.rail_file_id === 'rf_achsettled' ? ['settled', 'returned'] : ['rejected']);

    const again = await recordInboundFile(core, ACH_RAIL, answer.name, Buffer.from(answer.text));
    expect(await processAchInboundFile(host, ach, fileRecord(again))).toEqual({ events: 0, quarantined: false });
    expect(await dispatchRailEvents(core, ACH_RAIL)).toEqual({ dispatched: 0, left: 0 });
    expect(signals).toHaveLength(15_000);
  }, 180_000);
});
