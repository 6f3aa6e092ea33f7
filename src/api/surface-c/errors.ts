/** Surface C's error vocabulary is Surface A's (the spec gives C none; docs/surface-c.md "Errors"). */
import { surfaceAErrors } from '../surface-a/errors';
import { errorResponsesOf } from '../surface';

export { ErrorSchema, type ErrorBody } from '../surface-a/errors';

export const surfaceCErrors = surfaceAErrors;

/** OpenAPI error responses in Surface C's (= Surface A's) error schema. */
export const errorResponses = errorResponsesOf(surfaceCErrors);

/** Errors every authenticated Surface C route can return (spec "Authentication"). */
export const AUTH_ERRORS = { 401: 'Missing, unknown or revoked key, or a key of the other environment' } as const;
