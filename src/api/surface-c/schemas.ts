/** Surface C's shared wire schemas (spec "Surface C resources"); the generic ones are Surface A's. */
export { AUTH_ERRORS, type ErrorBody, ErrorSchema, errorResponses } from './errors';
export { DateTimeSchema, idempotencyHeaders, idParam, jsonContent, listEnvelope, pageQuery } from '../surface-a/schemas';

/** Description of the Idempotency-Key header on Surface C writes. */
export const IDEMPOTENCY_DESCRIPTION =
  'Makes a retried write safe (Surface A rules): the same key and body replays the first response (Idempotent-Replayed: true); another body is 409 idempotency_conflict. Kept 30 days. Optional, but a retry without one is a new request: a timeout and a retry can pay twice.';
