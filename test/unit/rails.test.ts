import { describe, expect, it } from 'vitest';
import { CLAIM_WINDOW_MS, sandboxClaimWindowMs, simulateRailAttempt } from '../../src/sandbox/rails';

const attempt = (reference: string | null, n = 1, existing?: string) =>
  simulateRailAttempt({ rail: 'spei', reference, attempt: n, sandboxArrival: 'PT0.2S', existingProviderReference: existing });

describe('sandbox rail simulator', () => {
  it('delivers by default after SANDBOX_ARRIVAL with a sbx_<rail>_ reference', () => {
    const r = attempt('Invoice 42');
    expect(r).toMatchObject({ ok: true, arrivalMs: 200 });
    expect(r.ok && r.providerReference).toMatch(/^sbx_spei_[A-Za-z0-9]+$/);
    expect(attempt(null).ok).toBe(true);
  });

  it.each(['invalid_destination', 'recipient_rejected_by_provider', 'limit_exceeded', 'provider_declined'])(
    'sandbox:%s is a final failure with that code',
    (code) => {
      expect(attempt(`sandbox:${code}`)).toMatchObject({ ok: false, errorCode: code, retryable: false });
    },
  );

  it('provider_timeout is retryable at every attempt with a growing backoff; _once only at the first', () => {
    expect(attempt('sandbox:provider_timeout', 1)).toMatchObject({ ok: false, errorCode: 'provider_timeout', retryable: true, retryAfterMs: 1000, providerReference: null });
    expect(attempt('sandbox:provider_timeout', 2)).toMatchObject({ ok: false, retryAfterMs: 2000 });
    expect(attempt('sandbox:provider_timeout', 3)).toMatchObject({ ok: false, errorCode: 'provider_timeout' });
    expect(attempt('sandbox:provider_timeout_once', 1)).toMatchObject({ ok: false, errorCode: 'provider_timeout' });
    expect(attempt('sandbox:provider_timeout_once', 2)).toMatchObject({ ok: true });
  });

  it('refunded_by_provider delivers then schedules the refund; slow takes 5 s', () => {
    expect(attempt('sandbox:refunded_by_provider')).toMatchObject({ ok: true, refundAfterMs: 1000, refundMessage: expect.any(String) });
    expect(attempt('sandbox:slow')).toMatchObject({ ok: true, arrivalMs: 5000 });
  });

  it('reuses the provider reference of a retried attempt', () => {
    expect(attempt('x', 1, 'sbx_spei_fixed')).toMatchObject({ ok: true, providerReference: 'sbx_spei_fixed' });
    expect(attempt('sandbox:provider_declined', 1, 'sbx_spei_fixed')).toMatchObject({ providerReference: 'sbx_spei_fixed' });
  });

  it('claim window: 30 days, 2 s under sandbox:claim_expired', () => {
    expect(sandboxClaimWindowMs(null)).toBe(CLAIM_WINDOW_MS);
    expect(CLAIM_WINDOW_MS).toBe(30 * 24 * 3600 * 1000);
    expect(sandboxClaimWindowMs('sandbox:claim_expired')).toBe(2000);
  });
});
