/**
 * Surface B's error vocabulary (spec "Errors", Surface B error body): `{error: <code>, message,
 * details: {...}}`; `details` always carries `requestId` (the X-Request-ID of the response, for bug
 * reports) and `param` (the offending field, camelCase, or null), plus any facts of the error.
 *
 * Codes and statuses (the spec's codes; where it leaves them open, our choice, docs/surface-b.md):
 * | HTTP | codes |
 * |------|-------|
 * | 400 | validation_error, invalid_phone |
 * | 401 | authentication_required, invalid_api_key, api_key_revoked, environment_mismatch |
 * | 402 | insufficient_balance |
 * | 404 | not_found, virtual_account_not_found |
 * | 409 | idempotency_conflict, idempotency_in_flight, disbursement_already_claimed, invalid_state, external_id_taken |
 * | 413 | payload_too_large |
 * | 422 | amount_below_minimum, recipient_country_unsupported |
 * | 429 | rate_limit_exceeded |
 * | 500 | internal_error |
 */
import { z } from '@hono/zod-openapi';
import { defineErrorVocabulary, errorResponsesOf } from '../surface';

/** Spec "Surface B error body". */
export const ClaimErrorSchema = z
  .object({
    error: z.string().openapi({ description: 'Machine-readable code', example: 'invalid_phone' }),
    message: z.string().openapi({ example: 'recipientPhone must be a valid phone number in E.164 format, e.g. +525512345678' }),
    details: z
      .record(z.string(), z.unknown())
      .openapi({
        description: 'requestId (= X-Request-ID), param (offending field or null), and facts of the error (e.g. errors[] of a batch)',
        example: { param: 'recipientPhone', requestId: 'req_01k0000000000000000000000' },
      }),
  })
  .openapi('Error');

/** A Surface B error body. */
export type ClaimErrorBody = z.infer<typeof ClaimErrorSchema>;

/**
 * Surface B's rendering of the core's errors (see the module table). The core's fields Surface B
 * spells differently are named by their domain key (src/domain/errors.ts FIELD_KEYS): the param is
 * Surface B's name, and so is the field's name in the message.
 */
export const surfaceBErrors = defineErrorVocabulary<ClaimErrorBody>({
  schema: ClaimErrorSchema,
  codes: { rate_limited: { code: 'rate_limit_exceeded' } },
  fields: {
    createdAfter: 'createdAfter',
    createdBefore: 'createdBefore',
    expirePreviousIn: 'expirePreviousIn',
    deliveryId: 'deliveryId',
    cursor: 'after',
    idempotencyKey: 'idempotencyKey',
  },
  body: (e) => ({ error: e.code, message: e.message, details: { ...(e.details ?? {}), param: e.param, requestId: e.requestId } }),
});

/** OpenAPI error responses in Surface B's body, `{status: description}`. */
export const errorResponses = errorResponsesOf(surfaceBErrors);

/** Errors every authenticated Surface B route can return. */
export const COMMON_ERRORS = {
  401: 'authentication_required, invalid_api_key, api_key_revoked, environment_mismatch (a key of the other environment)',
  429: 'rate_limit_exceeded (details: limit, rule, resetAt, retryAfterSeconds)',
  500: 'internal_error (quote details.requestId)',
} as const;
