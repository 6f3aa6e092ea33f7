/**
 * The pure parts of the rail seam (docs/rails.md): the reason-code table, the TARGET2 calendar and
 * cut-off, the SEPA references and what a SEPA file can carry, and the sandbox adapter's answers.
 */
import { describe, expect, it } from 'vitest';
import { ISO20022_REASON_CODES, mapIso20022Reason, returnFailure } from '../../src/rails/reason-codes';
import { sandboxRailAdapter } from '../../src/sandbox/rail-adapter';
import { sepaCarriageProblem, sepaEndToEndId, sepaMessageId, sepaUetr } from '../../src/rails/sepa/adapter';
import { executionDate, isTarget2BusinessDay, sepaLatestArrival } from '../../src/rails/target2';
import { PAYOUT_FAILURE_CODES } from '../../src/domain/payout-state';

describe('reason codes', () => {
  it('maps every listed ISO 20022 code to a spec failure code; an unknown code keeps its text', () => {
    for (const m of Object.values(ISO20022_REASON_CODES)) expect(PAYOUT_FAILURE_CODES).toContain(m.failureCode);
    expect(mapIso20022Reason('AC01')).toMatchObject({ failureCode: 'invalid_destination', retryable: false, railReasonCode: 'AC01' });
    expect(mapIso20022Reason('AM04')).toMatchObject({ failureCode: 'provider_declined', retryable: true });
    expect(mapIso20022Reason('ZZ99')).toMatchObject({ failureCode: 'provider_declined', retryable: false, railReasonCode: 'ZZ99' });
    expect(mapIso20022Reason('ZZ99').message).toContain('ZZ99');
    expect(mapIso20022Reason(null).railReasonCode).toBeNull();
  });

  it('a return is refunded_by_provider whatever its reason, with the reason kept', () => {
    expect(returnFailure('AC04')).toMatchObject({ failureCode: 'refunded_by_provider', railReasonCode: 'AC04' });
    expect(returnFailure('AC04').message).toContain('closed');
  });
});

describe('TARGET2 calendar', () => {
  it('closes on weekends, 1 Jan, Good Friday, Easter Monday, 1 May, 25 and 26 Dec', () => {
    for (const d of ['2027-01-01', '2027-03-26', '2027-03-29', '2027-05-01', '2027-12-25', '2027-12-26', '2026-11-28', '2026-11-29']) expect(isTarget2BusinessDay(d), d).toBe(false);
    for (const d of ['2027-03-25', '2027-03-30', '2026-11-25', '2027-05-03']) expect(isTarget2BusinessDay(d), d).toBe(true);
  });

  it('a file before the cut-off executes today; after it, or on a closing day, on the next business day', () => {
    // 12:59 UTC is 13:59 in Brussels (CET), before a 14:00 cut-off; 13:00 UTC is not.
    expect(executionDate(new Date('2026-11-25T12:59:00Z'), '14:00', 'Europe/Brussels')).toBe('2026-11-25');
    expect(executionDate(new Date('2026-11-25T13:00:00Z'), '14:00', 'Europe/Brussels')).toBe('2026-11-26');
    // Thursday before Easter 2027 after the cut-off: Good Friday and Easter Monday are closed.
    expect(executionDate(new Date('2027-03-25T15:00:00Z'), '14:00', 'Europe/Brussels')).toBe('2027-03-30');
    // Christmas Eve 2026 (Thursday) after the cut-off: 25 Dec, the weekend and ... 28 Dec.
    expect(executionDate(new Date('2026-12-24T16:00:00Z'), '14:00', 'Europe/Brussels')).toBe('2026-12-28');
    expect(sepaLatestArrival(new Date('2026-12-24T10:00:00Z'), '14:00', 'Europe/Brussels').toISOString()).toBe('2026-12-28T23:59:59.000Z');
  });
});

describe('SEPA references and text', () => {
  it('EndToEndId and MsgId use the SEPA set (no underscore) and fit 35 characters; the UETR is a stable UUID v4', () => {
    const id = 'po_01m88n9samdw4k3nch64r41d4y';
    expect(sepaEndToEndId(id, 1)).toBe('po-01m88n9samdw4k3nch64r41d4y-1');
    expect(sepaEndToEndId(id, 3).length).toBeLessThanOrEqual(35);
    expect(sepaMessageId('rf_01m88n9samdw4k3nch64r41d4y')).toBe('rf-01m88n9samdw4k3nch64r41d4y');
    expect(sepaUetr(id, 1)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(sepaUetr(id, 1)).toBe(sepaUetr(id, 1));
    expect(sepaUetr(id, 2)).not.toBe(sepaUetr(id, 1));
  });

  it('refuses what a SEPA file cannot carry, naming the field', () => {
    const iban = 'FR1420041010050500013M02606';
    expect(sepaCarriageProblem({ name: 'José Núñez', iban, remittance: 'Invoice 7' })).toBeNull();
    expect(sepaCarriageProblem({ name: '王小明', iban })?.field).toBe('holder_name');
    expect(sepaCarriageProblem({ name: 'Ana', iban: 'FR1420041010050500013M02607' })?.field).toBe('iban');
    expect(sepaCarriageProblem({ name: 'Ana', iban, bic: 'NOTABIC' })?.field).toBe('bic');
    expect(sepaCarriageProblem({ name: 'Ana', iban, remittance: 'x'.repeat(141) })?.field).toBe('reference');
  });
});

describe('the sandbox adapter', () => {
  const adapter = sandboxRailAdapter({ sandboxArrival: 'PT0.2S' });
  const instruction = (reference: string | null, attempt = 1) => ({
    payoutId: 'po_x', attempt, environment: 'sandbox' as const, businessId: 'biz_x', channel: 'spei_mxn', rail: 'spei',
    amountMinor: '1000', currency: 'MXN', creditor: { name: 'Ana', kind: 'individual' as const, country: 'MX', account: {} }, reference, existing: null,
  });

  it('answers at submission: settled with when it lands (and a known return), or rejected', async () => {
    expect(adapter.capabilities.answers).toBe('at_submission');
    expect(await adapter.submit(instruction(null))).toMatchObject({ outcome: 'settled', landsInMs: 200 });
    expect(await adapter.submit(instruction('sandbox:refunded_by_provider'))).toMatchObject({ outcome: 'settled', returned: { afterMs: 1000, failureCode: 'refunded_by_provider' } });
    expect(await adapter.submit(instruction('sandbox:invalid_destination'))).toMatchObject({ outcome: 'rejected', failureCode: 'invalid_destination', retryable: false });
    expect(await adapter.submit(instruction('sandbox:provider_timeout'))).toMatchObject({ outcome: 'rejected', failureCode: 'provider_timeout', retryable: true, retryAfterMs: 1000 });
    expect(await adapter.health()).toBe('working');
  });
});
