import { HTTPException } from 'hono/http-exception';
import type { ZodError } from 'zod';
import { ApiError, validationError } from '../domain/errors';
import { isDatabaseUnavailable, isNumericOverflow } from '../db/errors';

/** Dotted parameter path of a zod issue (`items.3.source_amount`), or null at the root. */
export function issueParam(path: readonly PropertyKey[]): string | null {
  return path.length ? path.map(String).join('.') : null;
}

/** The message of a wrong-typed Amount (docs/integration.md "Errors"): decimal strings, never JSON numbers. */
export const AMOUNT_TYPE_MESSAGE = 'must be a decimal string such as "100.00"';

/** The zod `error` option of a request Amount: a wrong JSON type reads {@link AMOUNT_TYPE_MESSAGE}; a missing one is `<param> is required`. */
export const amountTypeError = (issue: { input?: unknown }): string | undefined =>
  issue.input === undefined ? undefined : AMOUNT_TYPE_MESSAGE;

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'an integer',
  boolean: 'a boolean (true or false)',
  array: 'an array',
  object: 'an object',
  record: 'an object',
  date: 'a date-time string',
  null: 'null',
};

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k as string];
  }
  return v;
}

/** Whether zod's default message says the value was absent (`..., received undefined`). */
const saysMissing = (message: string) => /received undefined$/.test(message);

/** zod's own messages start like this; a message a schema set (e.g. {@link AMOUNT_TYPE_MESSAGE}) does not. */
const isZodDefault = (message: string) => /^Invalid (input|option|value)\b/.test(message);

/**
 * A zod error as a 400 validation_error naming its param, dotted, in the wire's own casing.
 * Given `input` (the validated body, query or headers), an issue about a value that was sent comes
 * first, and a wrong type reads `<param> must be <type>`; an absent value reads `<param> is
 * required`, an enum `<param> must be one of: a, b`, others `<param>: <the schema's message>`.
 */
export function fromZodError(error: ZodError, input?: unknown): ApiError {
  const issues = error.issues;
  const sent = (i: (typeof issues)[number]) => input !== undefined && valueAt(input, i.path) !== undefined;
  const issue = issues.find(sent) ?? issues[0];
  let path = issue?.path ?? [];
  if (issue && issue.code === 'unrecognized_keys' && issue.keys?.length) path = [...path, issue.keys[0]];
  const param = issueParam(path);
  const name = param ?? 'value';
  let message = issue?.message ?? 'Invalid request';
  if (issue?.code === 'invalid_type') {
    const missing = input !== undefined ? valueAt(input, issue.path) === undefined : saysMissing(issue.message);
    if (missing) message = `${name} is required`;
    else if (!isZodDefault(issue.message)) message = `${name} ${issue.message}`;
    else message = `${name} must be ${EXPECTED[issue.expected] ?? issue.expected}`;
  } else if (issue?.code === 'invalid_value' && isZodDefault(issue.message) && issue.values.length > 0) {
    message = `${name} must be one of: ${issue.values.map(String).join(', ')}`;
  } else if (issue?.code === 'invalid_union' && input !== undefined && valueAt(input, issue.path) === undefined) {
    message = `${name} is required`;
  } else if (param) message = `${param}: ${message}`;
  return validationError(param, message);
}

/** Seconds a 503 `service_unavailable` asks the client to wait (`Retry-After`): about a failover's length (docs/architecture.md "High availability"). */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_S = 5;

/** Anything thrown in a handler, as an ApiError (numeric overflow 22003: 400 validation_error; a lost database: 503 service_unavailable; else 500 internal_error). */
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
  // Amounts are bounded where parsed; this is the net under figures derived from them (bad input is never a 500).
  if (isNumericOverflow(err)) {
    return validationError(null, 'A number in this request is too large to be recorded');
  }
  if (isDatabaseUnavailable(err)) {
    return new ApiError(503, 'service_unavailable', 'The database is unavailable (a failover may be in progress); retry after Retry-After seconds with the same Idempotency-Key', null);
  }
  return new ApiError(500, 'internal_error', 'An internal error occurred; quote the request id when reporting it', null);
}
