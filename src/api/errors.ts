import { HTTPException } from 'hono/http-exception';
import type { ZodError } from 'zod';
import { ApiError, validationError } from '../domain/errors';
import { isNumericOverflow } from '../db/errors';

/** Dotted parameter path of a zod issue (`items.3.source_amount`), or null at the root. */
export function issueParam(path: readonly PropertyKey[]): string | null {
  return path.length ? path.map(String).join('.') : null;
}

/** First issue of a zod error as a 400 validation_error naming its param. */
export function fromZodError(error: ZodError): ApiError {
  const issue = error.issues[0];
  let path = issue?.path ?? [];
  // A missing key inside an object reports the object; point at the key when zod names it.
  if (issue && issue.code === 'unrecognized_keys' && issue.keys?.length) path = [...path, issue.keys[0]];
  const param = issueParam(path);
  let message = issue?.message ?? 'Invalid request';
  if (issue?.code === 'invalid_type' && issue.input === undefined) message = `${param ?? 'value'} is required`;
  else if (param) message = `${param}: ${message}`;
  return validationError(param, message);
}

/** Anything thrown in a handler, as an ApiError (PostgreSQL's numeric overflow 22003 becomes 400 validation_error; other unknown errors 500 internal_error). */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof HTTPException) {
    if (err.status === 413) return new ApiError(413, 'payload_too_large', 'Request body is too large', null);
    if (err.status === 400) return validationError(null, err.message || 'Malformed request');
    if (err.status === 401) return new ApiError(401, 'authentication_required', err.message, null);
    return new ApiError(err.status, 'validation_error', err.message, null);
  }
  if (err && typeof err === 'object' && 'issues' in err && Array.isArray((err as ZodError).issues)) {
    return fromZodError(err as ZodError);
  }
  // PostgreSQL 22003 numeric_value_out_of_range: a figure past a bigint column. Every Amount is
  // bounded where it is parsed (src/domain/money.ts MAX_AMOUNT_INTEGER_DIGITS); this is the net
  // under the figures derived from them, so that bad input is a 400 and never a 500.
  if (isNumericOverflow(err)) {
    return validationError(null, 'A number in this request is too large to be recorded');
  }
  return new ApiError(500, 'internal_error', 'An internal error occurred; quote the request id when reporting it', null);
}
