/**
 * Surface B's error vocabulary (spec "Surface B error body"; codes and statuses in docs/surface-b.md):
 * `{error: <code>, message, details}`; `details` always carries `requestId` (X-Request-ID) and
 * `param` (the offending field, camelCase, or null), plus any facts of the error.
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

export type ClaimErrorBody = z.infer<typeof ClaimErrorSchema>;

/** Surface B's rendering of the core's errors; `fields` maps domain field keys (src/domain/errors.ts) to B's names. */
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
