import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdCentsDown } from '../../src/api/surface-b/sandbox';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * Issue #40: Surface B shows its balance in USD with two decimals (spec "Shared types": fiat takes
 * two; docs/surface-b.md "Amounts"), rounded down to the cent, while the USDC ledger keeps six.
 */
let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness({ worker: false });
  key = (await h.business()).sandbox;
});
afterAll(async () => h?.close());

describe('Surface B balance precision', () => {
  it('a USDC balance of 1947.785 shows as availableUsd "1947.78" on Surface B, "1947.785" on Surface A', async () => {
    const a = await h.request('POST', '/sandbox/v1/sandbox/fund', { key, body: { amount: '1947.775' }, headers: { 'Idempotency-Key': 'bal-a' } });
    expect(a.status).toBe(200);
    const b = await h.request('POST', '/sandbox/claim/v1/sandbox/fund', { key, body: { amountUsd: '0.01', idempotencyKey: 'bal-b' } });
    expect(b.status).toBe(200);
    expect(b.body).toEqual({ availableUsd: '1947.78', heldUsd: '0.00', currency: 'USD' });
    const ledger = await h.request('GET', '/sandbox/v1/balance', { key });
    expect(JSON.stringify(ledger.body)).toContain('"1947.785"');
  });

  it('rounds down to the cent, never up', () => {
    expect(usdCentsDown('0.009999')).toBe('0.00');
    expect(usdCentsDown('10.5')).toBe('10.50');
    expect(usdCentsDown('1947.775')).toBe('1947.77');
    expect(usdCentsDown('0')).toBe('0.00');
  });
});
