/**
 * The rail modules' `statements` parts (docs/treasury.md "What the books expect", "Which rails have
 * a settlement account"): the keys, amounts, times and order of the movements our books expect from
 * a connection's records, and the settlement account each part names.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import type { SettlementEventRow } from '../../src/rails/adapter';
import { achExpectedMovements, achStatements } from '../../src/rails/ach/statements';
import { sepaExpectedMovements, sepaStatements } from '../../src/rails/sepa/statements';

const at = new Date('2026-11-27T10:00:00Z');
const event = (e: Partial<SettlementEventRow> & Pick<SettlementEventRow, 'id' | 'type'>): SettlementEventRow => ({
  payout_id: null,
  deposit_id: null,
  reason_code: null,
  details: {},
  end_to_end_id: null,
  trace_number: null,
  amount_minor: null,
  at,
  ...e,
});

describe('sepa_eur statements part', () => {
  it('expects a debit per booked payout, a credit per return and per incoming transfer; nothing for a rejection', () => {
    const out = sepaExpectedMovements({
      events: [
        event({ id: 'e1', type: 'settled', payout_id: 'po_1', end_to_end_id: 'E2E1', amount_minor: 1234n }),
        event({ id: 'e2', type: 'returned', payout_id: 'po_1', end_to_end_id: 'E2E1', amount_minor: 1234n, reason_code: 'AC04' }),
        event({ id: 'e3', type: 'rejected', payout_id: 'po_2', end_to_end_id: 'E2E2', amount_minor: 500n, reason_code: 'AC01' }),
        event({ id: 'e4', type: 'credit', deposit_id: 'dep_1', details: { accountServicerReference: 'ASR1', entryReference: 'NR1', amountMinor: '9900' } }),
        event({ id: 'e5', type: 'credit', details: { entryReference: 'NR2', amountMinor: '100' } }),
        event({ id: 'e6', type: 'settled', payout_id: 'po_3', end_to_end_id: null, amount_minor: 7n }),
      ],
    });
    expect(out.map((m) => [m.key, m.creditDebit, m.amountMinor, m.reference, m.description])).toEqual([
      ['DBIT:E2E1', 'DBIT', 1234n, 'E2E1', 'payout po_1 booked'],
      ['CRDT:E2E1', 'CRDT', 1234n, 'E2E1', 'return AC04 of payout po_1'],
      ['CRDT:ASR1', 'CRDT', 9900n, 'ASR1', 'incoming credit, deposit dep_1'],
      ['CRDT:NR2', 'CRDT', 100n, 'NR2', 'incoming credit (matched no virtual account)'],
    ]);
    expect(out.every((m) => m.at === at)).toBe(true);
  });

  it('names the EUR account RAIL_SEPA_DEBTOR_IBAN in camt.053', () => {
    expect([sepaStatements.format, sepaStatements.currency]).toEqual(['camt.053', 'EUR']);
    const config = loadConfig({
      RAIL_SEPA_SFTP_HOST: '127.0.0.1',
      RAIL_SEPA_SFTP_USER: 'u',
      RAIL_SEPA_SFTP_KEY_PATH: '/k',
      RAIL_SEPA_SFTP_HOST_KEY: `SHA256:${'A'.repeat(43)}`,
      RAIL_SEPA_DEBTOR_NAME: 'Platform',
      RAIL_SEPA_DEBTOR_IBAN: 'DE89 3704 0044 0532 0130 00',
      RAIL_SEPA_DEBTOR_BIC: 'COBADEFFXXX',
    });
    expect(sepaStatements.accountIdentifier(config)).toBe('DE89370400440532013000');
    expect(sepaStatements.accountIdentifier(loadConfig({}))).toBeNull();
  });
});

describe('ach_usd statements part', () => {
  it('expects a debit per uploaded entry first, then a credit per NACHA return and per incoming credit', async () => {
    const fileAt = new Date('2026-11-27T09:00:00Z');
    const events = [
      event({ id: 'e1', type: 'returned', payout_id: 'po_1', trace_number: '091000010000001', amount_minor: 2500n, reason_code: 'R03', details: { source: 'nacha', originalTraceNumber: '091000010000001' } }),
      event({ id: 'e2', type: 'rejected', payout_id: 'po_2', trace_number: '091000010000002', amount_minor: 700n, reason_code: 'R01', details: { source: 'nacha' } }),
      event({ id: 'e3', type: 'settled', payout_id: 'po_3', trace_number: '091000010000003', amount_minor: 900n, details: { source: 'silence' } }),
      event({ id: 'e4', type: 'credit', deposit_id: 'dep_1', details: { traceNumber: '021000020000009', amountMinor: '12000' } }),
    ];
    const uploaded = [
      { payout_id: 'po_1', trace_number: '091000010000001', amount_minor: 2500n, at: fileAt },
      { payout_id: 'po_x', trace_number: null, amount_minor: 1n, at: fileAt },
    ];
    const out = achExpectedMovements({ events, uploadedFileEntries: uploaded });
    expect(out.map((m) => [m.key, m.creditDebit, m.amountMinor, m.description])).toEqual([
      ['DBIT:091000010000001', 'DBIT', 2500n, 'ACH entry of payout po_1'],
      ['CRDT:091000010000001', 'CRDT', 2500n, 'ACH return R03 of payout po_1'],
      ['CRDT:091000010000002', 'CRDT', 700n, 'ACH return R01 of payout po_2'],
      ['CRDT:021000020000009', 'CRDT', 12000n, 'incoming credit, deposit dep_1'],
    ]);
    expect(out[0]!.at).toBe(fileAt);
    // Through the part: the core's records, the uploaded entries read on request.
    let asked = 0;
    const viaPart = await achStatements.expected({ events, uploadedFileEntries: async () => (asked++, uploaded) });
    expect(viaPart).toEqual(out);
    expect(asked).toBe(1);
    expect([achStatements.format, achStatements.currency, achStatements.accountIdentifier(loadConfig({}))]).toEqual(['bai2', 'USD', null]);
  });

  it('the SEPA part never asks for uploaded file entries', async () => {
    let asked = 0;
    await sepaStatements.expected({ events: [], uploadedFileEntries: async () => (asked++, []) });
    expect(asked).toBe(0);
  });
});
