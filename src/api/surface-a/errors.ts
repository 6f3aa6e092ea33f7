/**
 * Surface A's error vocabulary (spec "Errors", "Surface A error body"): the body
 * `{error: {code, message, param, request_id}}`, with the core's codes and HTTP statuses as they
 * are (the core's `ErrorCode` list is Surface A's table plus the documented extensions:
 * authentication codes on 401, not_found on 404, invalid_state / items_need_review /
 * stale_revision on 409, permission_denied / self_approval_forbidden on 403, payload_too_large on
 * 413, internal_error on 500). Every Surface A response other than 2xx is rendered from here.
 */
import { z } from '@hono/zod-openapi';
import { defineErrorVocabulary, errorResponsesOf } from '../surface';

/** Spec "Errors", Surface A error body: `{error: {code, message, param, request_id}}`. */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'validation_error' }),
      message: z.string(),
      param: z.string().nullable().openapi({ example: 'source_amount' }),
      request_id: z.string().openapi({ example: 'req_01k0000000000000000000000' }),
    }),
  })
  .openapi('Error');

/** A Surface A error body. */
export type ErrorBody = z.infer<typeof ErrorSchema>;

/** Surface A renders the core's `ErrorCode`s and statuses unchanged. */
export const surfaceAErrors = defineErrorVocabulary<ErrorBody>({
  schema: ErrorSchema,
  body: (e) => ({ error: { code: e.code, message: e.message, param: e.param, request_id: e.requestId } }),
});

/**
 * OpenAPI `responses` entries for error statuses: `{400: {description, content: Error}, ...}`.
 * `descriptions` maps the HTTP status to what it means on this route.
 */
export const errorResponses = errorResponsesOf(surfaceAErrors);

/** Errors every authenticated Surface A route can return (spec "Authentication"). */
export const AUTH_ERRORS = { 401: 'Missing, unknown or revoked key, or a key of the other environment' } as const;
