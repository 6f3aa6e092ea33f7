import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { surfaceAObject } from '../../src/wire/events';
import { invertSurfaceAObject, minorUnits } from '../../src/wire/surface-a/event-inverse';
import { domainFormOfLegacyEvent } from '../../src/wire/legacy-events';

/**
 * The inverse of Surface A's rendering (migration 0070; docs/webhooks.md "Event data") over every recorded
 * payload (test/fixtures/event-payloads/): each Surface A object, its placeholders filled back with values
 * of their kind, is inverted into a domain object whose rendering is the same bytes.
 */
const FIXTURES = join(__dirname, '..', 'fixtures', 'event-payloads');

/** Undoes the fixtures' normalisation with fixed values: times, ids (`<po_id>`), tokens. */
function filled(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(filled);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, filled(x)]));
  if (typeof v !== 'string') return v;
  if (v === '<time>') return '2026-11-28T12:34:56.789Z';
  return v.replace(/<([a-z][a-z0-9]*)_id>/g, '$1_01kb0000000000000000000001').replace(/<token>/g, 'tok0123456789abcdef');
}

const recorded = readdirSync(FIXTURES).flatMap((f) =>
  (JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as { core_type: string; A?: { webhook: { data: { object: Record<string, unknown> } } } }[])
    .filter((e) => e.A)
    .map((e) => ({ name: `${f} ${e.core_type}`, type: e.core_type, object: filled(e.A!.webhook.data.object) as Record<string, unknown> })),
);

describe('the inverse of Surface A rendering', () => {
  it('covers every kind recorded', () => {
    expect(new Set(recorded.map((r) => r.object.object))).toEqual(new Set(['payout', 'disbursement', 'deposit', 'payment_request', 'recipient']));
  });

  it.each(recorded.map((r) => [r.name, r.object] as const))('%s: inverted and rendered again, the same bytes', (_, object) => {
    const o = invertSurfaceAObject(object, surfaceAObject);
    expect(o).not.toBeNull();
    expect(JSON.stringify(surfaceAObject(o!))).toBe(JSON.stringify(object));
  });

  it.each(recorded.map((r) => [r.name, r.type, r.object] as const))('%s: Surfaces B and C render the inverted object as they render the legacy row', (_, type, object) => {
    // domainFormOfLegacyEvent compares Surface A's object and Surface B's and C's envelopes of both forms.
    expect(domainFormOfLegacyEvent({ id: 'evt_01kb0000000000000000000001', type, createdAt: new Date(0), data: object })).not.toBeNull();
  });

  it('amounts go back to minor units by the currency exponent', () => {
    expect([minorUnits('12.34', 'USD'), minorUnits('1.5', 'USDC'), minorUnits('1000', 'JPY'), minorUnits('0.125', 'KWD')]).toEqual([1234n, 1_500_000n, 1000n, 125n]);
    expect(() => minorUnits('1.234', 'USD')).toThrow();
  });

  it('refuses an object the current renderer does not produce', () => {
    const payout = recorded.find((r) => r.object.object === 'payout')!.object;
    expect(invertSurfaceAObject({ id: 'po_1', status: 'submitted' }, surfaceAObject)).toBeNull();
    // More decimals than USDC has, a fee rendered with trailing zeros.
    expect(invertSurfaceAObject({ ...payout, fees: { ...(payout.fees as object), total: '0.500000' } }, surfaceAObject)).toBeNull();
    expect(invertSurfaceAObject({ ...payout, source_amount: '1.2345678' }, surfaceAObject)).toBeNull();
    // A time as an older renderer might have written it (no milliseconds) would not render back the same.
    expect(invertSurfaceAObject({ ...payout, created_at: '2026-11-28T12:34:56Z' }, surfaceAObject)).toBeNull();
    expect(invertSurfaceAObject({ ...payout, object: 'card' }, surfaceAObject)).toBeNull();
  });
});
