/** The notification delivery events on every surface with a payout view (docs/notifications.md "Events"). */
import { describe, expect, it } from 'vitest';
import { surfaceBEventType } from '../../src/domain/surface-b';
import { surfaceBEnvelope } from '../../src/wire/surface-b-envelope';
import { surfaceCEventType } from '../../src/domain/surface-c';
import { surfaceCEnvelope } from '../../src/wire/surface-c-envelope';
import { surfaceAEventType } from '../../src/domain/webhook-events';

const data = {
  id: 'po_1',
  channel: 'claim_link',
  status: 'awaiting_claim',
  source_amount: '25.00',
  recipient: { type: 'phone', number: '+525512345678' },
  notification: { channel: 'sms', destination: '+52••••••5678', status: 'failed', delivered_at: null, failure_code: '30003', error: 'Twilio reported the message undelivered (error 30003)' },
};

describe('notification events', () => {
  it('Surface A and C receive payout.notification_delivered / _failed under the same names', () => {
    for (const t of ['payout.notification_delivered', 'payout.notification_failed']) {
      expect(surfaceAEventType(t)).toBe(t);
      expect(surfaceCEventType(t)).toBe(t);
    }
    expect(surfaceCEnvelope({ id: 'evt_1', type: 'payout.notification_failed', createdAt: new Date(0), object: null, data })).toMatchObject({
      type: 'payout.notification_failed',
      data: { object: { id: 'po_1', object: 'payout', status: 'pending' } },
    });
  });

  it('Surface B receives them as disbursement.notification_* for claim links, with the notification in camelCase', () => {
    expect(surfaceBEventType('payout.notification_delivered', data)).toBe('disbursement.notification_delivered');
    expect(surfaceBEventType('payout.notification_failed', { ...data, channel: 'spei_mxn' })).toBeNull();
    const env = surfaceBEnvelope({ id: 'evt_1', type: 'payout.notification_failed', createdAt: new Date(0), object: null, data });
    expect(env).toMatchObject({
      type: 'disbursement.notification_failed',
      data: { id: 'po_1', status: 'pending', notification: { channel: 'sms', status: 'failed', failureCode: '30003', deliveredAt: null } },
    });
  });
});
