/**
 * Surface C's error vocabulary. The spec gives Surface C no error body, so it uses Surface A's
 * (docs/surface-c.md "Errors"): `{error: {code, message, param, request_id}}`, the core's
 * codes and HTTP statuses unchanged, `param` naming Surface C's own fields (`amount`,
 * `destination`, `payouts.3.email`, ...).
 */
import { surfaceAErrors } from '../surface-a/errors';
import { errorResponsesOf } from '../surface';

export { ErrorSchema, type ErrorBody } from '../surface-a/errors';

/** Surface A's vocabulary, as Surface C's. */
export const surfaceCErrors = surfaceAErrors;

/** OpenAPI error responses in Surface C's (= Surface A's) error schema. */
export const errorResponses = errorResponsesOf(surfaceCErrors);

/** Errors every authenticated Surface C route can return (spec "Authentication"). */
export const AUTH_ERRORS = { 401: 'Missing, unknown or revoked key, or a key of the other environment' } as const;
