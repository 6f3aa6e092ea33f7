import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * Issue #40: the OpenAPI examples of fees, rates and destination amounts are the figures the
 * sandbox answers for the same request (src/api/examples.ts computes them with the pricing code),
 * not hand-typed numbers such as a fee of "100.00" beside a rate of 17.05.
 */
type Json = Record<string, any>;
let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness({ worker: false });
  key = (await h.business()).sandbox;
  await h.request('POST', '/sandbox/v1/sandbox/fund', { key, body: { amount: '1000' } });
});
afterAll(async () => h?.close());

const examplesOf = (schema: Json) => Object.fromEntries(Object.entries<Json>(schema.properties).map(([k, v]) => [k, v.example]));

describe('OpenAPI examples match real sandbox responses', () => {
  it('Surface A: the Quote, Fees and Payout examples are a real 100 USDC spei_mxn quote', async () => {
    const doc = (await h.request('GET', '/sandbox/v1/openapi.json')).body as Json;
    const quote = await h.request('POST', '/sandbox/v1/quotes', { key, body: { channel: 'spei_mxn', source_amount: '100' } });
    expect(quote.status).toBe(201);
    const q = examplesOf(doc.components.schemas.Quote);
    expect({ channel: q.channel, source_amount: q.source_amount, destination_amount: q.destination_amount, destination_currency: q.destination_currency, rate: q.rate }).toEqual({
      channel: quote.body.channel,
      source_amount: quote.body.source_amount,
      destination_amount: quote.body.destination_amount,
      destination_currency: quote.body.destination_currency,
      rate: quote.body.rate,
    });
    expect(examplesOf(doc.components.schemas.Fees)).toEqual(quote.body.fees);
    expect(examplesOf(doc.components.schemas.PayoutFees)).toEqual(quote.body.fees);
    const p = examplesOf(doc.components.schemas.Payout);
    expect([p.destination_amount, p.rate]).toEqual([quote.body.destination_amount, quote.body.rate]);
    // The fees are small next to the amount, not the amount again.
    expect(Number(quote.body.fees.total)).toBeLessThan(Number(quote.body.source_amount) / 10);
  });

  it('Surfaces B and C: the fee examples are a real 25.00 USD claim link', async () => {
    const c = await h.request('POST', '/sandbox/guide/v1/payouts', { key, body: { email: 'ana@example.com', amount: '25.00', currency: 'USD' }, headers: { 'Idempotency-Key': 'ex-c' } });
    expect(c.status).toBe(201);
    const docC = (await h.request('GET', '/sandbox/guide/v1/openapi.json')).body as Json;
    expect(examplesOf(docC.components.schemas.PayoutFees)).toEqual(c.body.fees);
    const b = await h.request('POST', '/sandbox/claim/v1/disbursements', { key, body: { recipientEmail: 'ana@example.com', amountUsd: '25.00', idempotencyKey: 'ex-b' } });
    expect(b.status).toBe(201);
    const docB = (await h.request('GET', '/sandbox/claim/v1/openapi.json')).body as Json;
    const disbursement = Object.values<Json>(docB.components.schemas).find((s) => s.properties?.feeUsd);
    expect(disbursement!.properties.feeUsd.example).toBe(b.body.feeUsd);
  });
});
