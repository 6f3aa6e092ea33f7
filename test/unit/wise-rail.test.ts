/**
 * The payout partner rail's pure parts (src/rails/wise/: routes, customerTransactionId, exact JSON
 * numbers, state mapping; docs/rails.md "Payout partner").
 */
import { describe, expect, it } from 'vitest';
import { JsonNumber, parseJsonExact, toJson } from '../../src/rails/wise/client';
import { wiseCustomerTransactionId, wiseFailure, wiseRailModule } from '../../src/rails/wise/module';
import { WISE_ROUTES, wiseAccountOf, wiseRouteOf } from '../../src/rails/wise/routes';
import { findChannel } from '../../src/domain/channels';
import { railModuleOf } from '../../src/rails/registry';

describe('partner routes', () => {
  it('every route is a catalog channel of that currency and rail, whose recipient fields it maps', () => {
    for (const r of WISE_ROUTES) {
      const ch = findChannel(r.channel)!;
      expect(ch, r.channel).toBeDefined();
      expect([ch.currency, ch.rail]).toEqual([r.currency, r.rail]);
      const names = ch.requirements.map((f) => f.name);
      for (const f of r.fields) expect(names, `${r.channel}.${f.from}`).toContain(f.from);
      expect(railModuleOf(r.rail)).toBe(wiseRailModule);
    }
    expect(wiseRouteOf('bank_cad')).toBeUndefined();
  });

  it('maps a spei_mxn recipient to a mexican account; names the field the partner cannot take', () => {
    const route = wiseRouteOf('spei_mxn')!;
    expect(wiseAccountOf(route, { holder_name: ' Ana  Lopez ', clabe: '002180000000000015', recipient_kind: 'individual' })).toEqual({
      account: { accountHolderName: 'Ana Lopez', legalType: 'PRIVATE', type: 'mexican', currency: 'MXN', details: { clabe: '002180000000000015' } },
    });
    expect(wiseAccountOf(route, { holder_name: 'Madonna', clabe: '002180000000000015' })).toMatchObject({ field: 'holder_name' });
    expect(wiseAccountOf(route, { holder_name: 'Acme', clabe: '002180000000000015', recipient_kind: 'business' })).toMatchObject({ account: { legalType: 'BUSINESS' } });
    expect(wiseAccountOf(route, { holder_name: 'Ana Lopez', clabe: '12' })).toMatchObject({ field: 'clabe' });
    expect(wiseRailModule.carriageProblem!({ holder_name: 'Madonna', clabe: '002180000000000015' }, null, 'spei_mxn')).toMatchObject({ field: 'holder_name', status: 422 });
    expect(wiseRailModule.carriageProblem!({ holder_name: 'Madonna' }, null, 'bank_cad')).toBeNull();
  });
});

describe('customerTransactionId', () => {
  it('is a UUID derived from payout and attempt: the same attempt always gets the same one', () => {
    const a = wiseCustomerTransactionId('po_01m8d0000000000000000000aa', 1);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(wiseCustomerTransactionId('po_01m8d0000000000000000000aa', 1)).toBe(a);
    expect(wiseCustomerTransactionId('po_01m8d0000000000000000000aa', 2)).not.toBe(a);
    expect(wiseCustomerTransactionId('po_01m8d0000000000000000000ab', 1)).not.toBe(a);
  });
});

describe('exact JSON numbers', () => {
  it('writes decimal strings as JSON numbers and reads numbers back as their text', () => {
    expect(toJson({ targetAmount: new JsonNumber('1234567890123.10'), n: 'x' })).toBe('{"targetAmount":1234567890123.10,"n":"x"}');
    expect(parseJsonExact('{"rate":17.250000,"fee":{"total":0.10},"id":90071992547409931}')).toEqual({ rate: '17.250000', fee: { total: '0.10' }, id: '90071992547409931' });
    expect(() => new JsonNumber('1e5')).toThrow();
  });
});

describe('partner states', () => {
  it('map to the spec failures with the state as the rail reason code', () => {
    expect(wiseFailure('returned', 'bounced_back')).toMatchObject({ failureCode: 'refunded_by_provider', railReasonCode: 'bounced_back', retryable: false });
    expect(wiseFailure('rejected', 'bounced_back')).toMatchObject({ failureCode: 'invalid_destination', railReasonCode: 'bounced_back' });
    expect(wiseFailure('rejected', 'cancelled')).toMatchObject({ failureCode: 'provider_declined', railReasonCode: 'cancelled' });
    expect(wiseFailure('rejected', 'funds_refunded')).toMatchObject({ failureCode: 'provider_declined', railReasonCode: 'funds_refunded' });
  });
});
