/** Surface A's error vocabulary (spec "Errors"): the core's codes and statuses unchanged. */
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

export type ErrorBody = z.infer<typeof ErrorSchema>;

export const surfaceAErrors = defineErrorVocabulary<ErrorBody>({
  schema: ErrorSchema,
  body: (e) => ({ error: { code: e.code, message: e.message, param: e.param, request_id: e.requestId } }),
});

/** OpenAPI error responses in Surface A's body, `{status: description}`. */
export const errorResponses = errorResponsesOf(surfaceAErrors);

/** Errors every authenticated Surface A route can return (spec "Authentication"). */
export const AUTH_ERRORS = { 401: 'Missing, unknown or revoked key, or a key of the other environment' } as const;
