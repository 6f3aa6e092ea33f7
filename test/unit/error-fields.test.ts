import { describe, expect, it } from 'vitest';
import { surfaceAErrors } from '../../src/api/surface-a/errors';
import { surfaceBErrors } from '../../src/api/surface-b/errors';
import { ApiError, fieldError, fieldValidationError } from '../../src/domain/errors';

/**
 * Errors about a field the surfaces spell differently (src/domain/errors.ts FIELD_KEYS): the core
 * names the field by its domain key, Surface A renders the core's spelling and Surface B its own,
 * in the param and in the message, with no rewriting of message text.
 */
describe('errors naming a field by its domain key', () => {
  it('Surface A keeps the core spelling; Surface B names its own field in param and message', () => {
    const e = fieldValidationError('createdAfter', (name) => `${name} must be an ISO 8601 date-time; created_after_x stays`);
    expect([e.param, e.message]).toEqual(['created_after', 'created_after must be an ISO 8601 date-time; created_after_x stays']);
    const a = surfaceAErrors.render(e, 'req_1').body as any;
    expect(a.error).toMatchObject({ code: 'validation_error', param: 'created_after', message: e.message });
    const b = surfaceBErrors.render(e, 'req_1');
    expect(b.status).toBe(400);
    expect(b.body).toEqual({
      error: 'validation_error',
      message: 'createdAfter must be an ISO 8601 date-time; created_after_x stays',
      details: { param: 'createdAfter', requestId: 'req_1' },
    });
  });

  it('a fixed message keeps its text on Surface B; only the param is renamed', () => {
    const e = fieldError(409, 'idempotency_conflict', 'idempotencyKey', 'This Idempotency-Key was already used');
    expect(surfaceBErrors.render(e, 'r').body).toMatchObject({ message: 'This Idempotency-Key was already used', details: { param: 'idempotencyKey' } });
    expect(surfaceBErrors.render(fieldValidationError('cursor', 'cursor is not valid'), 'r').body.details.param).toBe('after');
  });

  it('an error with a plain param is rendered as raised, also when its text names a field', () => {
    const e = new ApiError(400, 'validation_error', 'created_after must be set', 'created_after');
    expect(surfaceBErrors.render(e, 'r').body).toMatchObject({ message: 'created_after must be set', details: { param: 'created_after' } });
  });
});
