import { describe, expect, it } from 'vitest';
import { eventObjectData, parseEventObject } from '../../src/domain/event-objects';
import type { PayoutNotification } from '../../src/domain/notifications';
import type { Payout } from '../../src/domain/payouts';
import { jsonbOrder, surfaceASnapshot } from '../../src/wire/events';
import { renderPayoutNotification } from '../../src/wire/surface-a/notifications';
import { renderPayout } from '../../src/wire/surface-a/payouts';

const t = (s: string) => new Date(s);

const payout: Payout = {
  id: 'po_1',
  status: 'failed',
  channel: 'claim_link',
  recipientId: null,
  recipient: { type: 'phone', details: { number: '+52•••••5678' } },
  source: { minor: 25_120_000n, currency: 'USDC' },
  destination: { minor: 43_210n, currency: 'MXN' },
  rate: '17.2',
  fees: { provider: 100_000n, service: 20_000n, fxSpread: 0n, total: 120_000n },
  rateDetails: { referenceRate: '17.25', source: 'fixture', asOf: t('2026-11-27T10:00:00.000Z'), spreadBps: 30 },
  reference: 'inv-1',
  memo: null,
  message: 'thanks',
  quoteId: null,
  estimatedArrival: t('2026-11-28T10:00:00.000Z'),
  deliveredAt: null,
  providerReference: null,
  failure: { code: 'claim_expired', message: 'The claim window closed', retryable: null, railReasonCode: null },
  attempts: 1,
  claim: { url: 'https://pay.example/c/tok', expiresAt: t('2026-12-27T10:00:00.000Z'), claimedAt: null, method: null },
  disbursementId: null,
  createdAt: t('2026-11-27T10:00:00.000Z'),
  updatedAt: t('2026-11-27T11:00:00.000Z'),
};

const notification: PayoutNotification = {
  channel: 'whatsapp',
  destination: '+52•••••5678',
  language: 'es',
  status: 'sent',
  sentAt: t('2026-11-27T10:00:01.000Z'),
  deliveredAt: null,
  error: null,
  failureCode: null,
};

/** As PostgreSQL's jsonb gives a stored row back. */
const stored = (data: Record<string, unknown>) => jsonbOrder(JSON.parse(JSON.stringify(data))) as Record<string, unknown>;

describe('payout events recorded as domain objects', () => {
  it('keep the keys Surface B filters on and metrics read (channel, failure.code)', () => {
    const data = stored(eventObjectData({ object: 'payout', value: payout }));
    expect(data.object).toBe('payout');
    expect(data.channel).toBe('claim_link');
    expect((data.failure as { code: string }).code).toBe('claim_expired');
    expect(data.source).toEqual({ minor: { $bigint: '25120000' }, currency: 'USDC' });
  });

  it("render Surface A's payout from the stored form, in jsonb key order", () => {
    const data = stored(eventObjectData({ object: 'payout', value: payout }));
    const snapshot = surfaceASnapshot('domain', data);
    expect(JSON.stringify(snapshot)).toBe(JSON.stringify(stored({ ...renderPayout(payout) })));
    expect(snapshot).toMatchObject({ source_amount: '25.12', destination_amount: '432.10', fees: { total: '0.12' }, rate_details: { as_of: '2026-11-27T10:00:00.000Z' } });
    expect(snapshot.failure).toEqual({ code: 'claim_expired', message: 'The claim window closed' });
  });

  it('carry the notification beside the payout (payout.notification_*)', () => {
    const data = stored(eventObjectData({ object: 'payout', value: payout, notification }));
    const back = parseEventObject(data);
    expect(back).toEqual({ object: 'payout', value: payout, notification });
    const snapshot = surfaceASnapshot('domain', data);
    expect(snapshot.notification).toEqual(renderPayoutNotification(notification));
    expect(snapshot.id).toBe('po_1');
  });

  it('leave a surface_a row as it was stored', () => {
    const wire = { ...renderPayout(payout) };
    expect(surfaceASnapshot('surface_a', wire)).toBe(wire);
  });
});
