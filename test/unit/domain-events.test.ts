import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  depositEvent,
  disbursementAwaitingApprovalEvent,
  disbursementFinishedEvent,
  disbursementLaunchedEvent,
  paymentRequestEvent,
  payoutNotificationEvent,
  payoutStatusEvent,
  recipientCorrectedEvent,
} from '../../src/domain/domain-events';
import type { Deposit } from '../../src/domain/deposits';
import type { Disbursement } from '../../src/domain/disbursements';
import { EVENT_OBJECT_VERSION, eventObjectData, parseEventObject, type RecipientEventValue } from '../../src/domain/event-objects';
import type { PayoutNotification } from '../../src/domain/notifications';
import type { PaymentRequest } from '../../src/domain/payment-links';
import type { Payout } from '../../src/domain/payouts';
import { surfaceASnapshot } from '../../src/wire/events';

const SRC = join(__dirname, '..', '..', 'src');
const CONSTRUCTORS = 'domain/domain-events.ts';
/** The outbox copies the constructor's key into the row; the table type declares the column. */
const COPIES = new Set(['core/events.ts', 'db/tables/payouts.ts']);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const owner = { businessId: 'biz_1', environment: 'sandbox' as const };
const payout = { id: 'po_1', channel: 'claim_link' } as Payout;

describe('event constructors (docs/webhooks.md "Event data")', () => {
  it('no module but the constructors spells an event dedupe key', () => {
    const offenders: string[] = [];
    for (const f of files(SRC)) {
      const rel = relative(SRC, f).split('\\').join('/');
      if (rel === CONSTRUCTORS || rel.startsWith('db/migrations/')) continue;
      readFileSync(f, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (!/dedupe_?[kK]ey\s*:/.test(line)) return;
          if (COPIES.has(rel) && !/dedupe_?[kK]ey\s*:\s*[`'"]/.test(line)) return;
          offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  it('each kind owns its key: one emission per step, retries collapse', () => {
    const d = { id: 'dsb_1' } as Disbursement;
    const n = { channel: 'whatsapp' } as PayoutNotification;
    expect(
      [
        payoutStatusEvent(owner, 'payout.succeeded', payout, 'succeeded'),
        payoutStatusEvent(owner, 'payout.claim_started', payout, 'claim_started'),
        payoutNotificationEvent(owner, 'payout.notification_delivered', payout, n),
        disbursementLaunchedEvent(owner, 'disbursement.launched', d),
        disbursementAwaitingApprovalEvent(owner, 'disbursement.awaiting_approval', d, 'rev_2'),
        disbursementFinishedEvent(owner, 'disbursement.completed', d, 'completed', 1),
        paymentRequestEvent(owner, 'payment_request.expired', { id: 'preq_1' } as PaymentRequest, 'expired'),
        depositEvent(owner, 'deposit.dropped', { id: 'dep_1' } as Deposit, 'dropped'),
      ].map((e) => [e.type, e.objectType, e.objectId, e.dedupeKey]),
    ).toEqual([
      ['payout.succeeded', 'payout', 'po_1', 'payout:po_1:succeeded'],
      ['payout.claim_started', 'payout', 'po_1', 'payout:po_1:claim_started'],
      ['payout.notification_delivered', 'payout', 'po_1', 'payout:po_1:notification_delivered'],
      ['disbursement.launched', 'disbursement', 'dsb_1', 'disbursement:dsb_1:launched'],
      ['disbursement.awaiting_approval', 'disbursement', 'dsb_1', 'disbursement:dsb_1:awaiting_approval:rev_2'],
      ['disbursement.completed', 'disbursement', 'dsb_1', 'disbursement:dsb_1:completed:1'],
      ['payment_request.expired', 'payment_request', 'preq_1', 'payment_request:preq_1:expired'],
      ['deposit.dropped', 'deposit', 'dep_1', 'deposit:dep_1:dropped'],
    ]);
  });
});

describe('stored event objects are versioned', () => {
  it(`store v ${EVENT_OBJECT_VERSION}; a row without v is version 1; another version is refused`, () => {
    const data = eventObjectData({ object: 'payout', value: payout });
    expect(data).toMatchObject({ v: 1, object: 'payout', id: 'po_1' });
    expect(parseEventObject(data)).toEqual({ object: 'payout', value: payout });
    const { v: _v, ...unversioned } = data;
    expect(parseEventObject(unversioned)).toEqual({ object: 'payout', value: payout });
    expect(() => parseEventObject({ ...data, v: 2 })).toThrow(/version 2/);
  });

  it('recipient.updated: the domain recipient renders as Surface A recorded it (snake_case, masked details under its type)', () => {
    const r: RecipientEventValue = {
      id: 'rcp_1',
      type: 'bank_account',
      country: 'US',
      currency: 'USD',
      name: 'Casey',
      kind: 'individual',
      externalId: null,
      details: { account_number: '••••4321' },
      status: 'ready',
      missingFields: [],
      channels: ['ach_usd'],
      createdAt: new Date('2026-11-28T10:00:00.000Z'),
      updatedAt: new Date('2026-11-28T11:00:00.000Z'),
      correction: { source: 'notification_of_change', changeCode: 'C01', payoutId: 'po_9' },
    };
    const e = recipientCorrectedEvent(owner, r, 'noc_1');
    expect(e.dedupeKey).toBe('recipient:rcp_1:correction:noc_1');
    expect(JSON.stringify(surfaceASnapshot('domain', eventObjectData(e.object)))).toBe(
      JSON.stringify({
        id: 'rcp_1',
        kind: 'individual',
        name: 'Casey',
        type: 'bank_account',
        object: 'recipient',
        status: 'ready',
        country: 'US',
        channels: ['ach_usd'],
        currency: 'USD',
        correction: { source: 'notification_of_change', payout_id: 'po_9', change_code: 'C01' },
        created_at: '2026-11-28T10:00:00.000Z',
        updated_at: '2026-11-28T11:00:00.000Z',
        external_id: null,
        bank_account: { account_number: '••••4321' },
        missing_fields: [],
      }),
    );
  });
});
