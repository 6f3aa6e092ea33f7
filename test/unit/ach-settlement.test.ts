/**
 * When ACH entries settle by silence and what file a window's entries make (src/rails/ach/file.ts;
 * docs/rails.md "ACH"): the Fed's settlement of the effective entry date, moved on when the upload
 * comes too late for it; RAIL_ACH_SETTLE_AFTER for tests; the usual return deadline two banking
 * days after settlement; one batch per SEC code with the stored trace numbers.
 */
import { describe, expect, it } from 'vitest';
import { achSettlesAt, achUsualReturnDeadline, composeAchFile } from '../../src/rails/ach/file';
import { nextFedBusinessDay } from '../../src/rails/fed-calendar';
import { parseNachaFile } from '../../src/rails/nacha';
import { testAchConfig } from '../helpers/ach-config';

const config = testAchConfig();

describe('achSettlesAt', () => {
  it('settles at 17:00 New York on the effective date when the upload is in time', () => {
    // Friday 2027-01-15, effective Tuesday 2027-01-19 (Monday is MLK Day): 17:00 EST = 22:00 UTC.
    expect(achSettlesAt(config, '2027-01-19', new Date('2027-01-15T20:30:00Z')).toISOString()).toBe('2027-01-19T22:00:00.000Z');
  });

  it('an upload after its effective date settled takes the next window from the upload time', () => {
    // Written Friday for that day (same-day), uploaded after 17:00 New York (an outage): next business day, Tuesday.
    expect(achSettlesAt(config, '2027-01-15', new Date('2027-01-15T23:00:00Z')).toISOString()).toBe('2027-01-19T22:00:00.000Z');
  });

  it('RAIL_ACH_SETTLE_AFTER settles that long after the upload', () => {
    expect(achSettlesAt({ ...config, settleAfterMs: 3000 }, '2027-01-19', new Date('2027-01-15T20:30:00Z')).toISOString()).toBe('2027-01-15T20:30:03.000Z');
  });

  it('the usual return time ends two banking days after settlement (then a return is late)', () => {
    expect(achUsualReturnDeadline(config, new Date('2027-01-15T22:00:00Z'), nextFedBusinessDay).toISOString()).toBe('2027-01-20T22:00:00.000Z');
    expect(achUsualReturnDeadline({ ...config, settleAfterMs: 3000 }, new Date('2027-01-15T22:00:00Z'), nextFedBusinessDay).toISOString()).toBe('2027-01-15T22:00:00.000Z');
  });
});

describe('composeAchFile', () => {
  const row = (n: number, sec: 'PPD' | 'CCD', amount: bigint) => ({
    payoutId: `po_01m8c0000000000000000000${String(n).padStart(2, '0')}`,
    attempt: 1,
    rail: 'ach',
    businessId: 'biz_1',
    endToEndId: `po-01m8c0000000000000000000${String(n).padStart(2, '0')}-1`,
    uetr: null,
    traceNumber: `09100001${String(n).padStart(7, '0')}`,
    details: { routing_number: '021000021', account_number: `12345${n}`, account_type: n % 2 ? 'checking' : 'savings', sec_code: sec },
    amountMinor: amount,
    currency: 'USD',
    creditorName: `Émilie Dupont ${n}`,
    creditorIban: null,
    creditorBic: null,
    remittance: n === 1 ? 'Invoice 1' : null,
    status: 'queued' as const,
    railFileId: null,
    paymentInformationId: null,
    createdAt: new Date(),
    updatedAt: new Date(),
  });

  it('one batch per SEC code, the stored traces, the total in cents, the effective date and window', () => {
    const rows = [row(1, 'PPD', 2000n), row(2, 'CCD', 150075n), row(3, 'PPD', 1n)];
    const file = composeAchFile(config, rows, new Date('2027-01-15T15:00:00Z'), 'rf_01m8c0000000000000000000zz');
    expect(file).toMatchObject({ name: 'rf-01m8c0000000000000000000zz.ach', kind: 'nacha', executionDate: '2027-01-15', settlementWindow: 'same_day' });
    const parsed = parseNachaFile(file.content);
    expect(parsed.batches.map((b) => [b.secCode, b.entries.map((e) => e.traceNumber)])).toEqual([
      ['PPD', ['091000010000001', '091000010000003']],
      ['CCD', ['091000010000002']],
    ]);
    expect(parsed.totalCreditMinor).toBe('152076');
    expect(parsed.batches[0]!.entries[0]).toMatchObject({ transactionCode: '22', name: 'EMILIE DUPONT 1', addenda05: { paymentRelatedInformation: 'INVOICE 1' } });
    expect(parsed.batches[1]!.entries[0]!.transactionCode).toBe('32');
    expect(file.groupOf(rows[1]!.payoutId)).toBe('rf-01m8c0000000000000000000zz-B2');
  });
});
