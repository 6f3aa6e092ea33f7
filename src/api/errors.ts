import { HTTPException } from 'hono/http-exception';
import type { ZodError } from 'zod';
import { ApiError, validationError } from '../domain/errors';
import { isNumericOverflow } from '../db/errors';

/** Dotted parameter path of a zod issue (`items.3.source_amount`), or null at the root. */
export function issueParam(path: readonly PropertyKey[]): string | null {
  return path.length ? path.map(String).join('.') : null;
}

/**
 * What a wrong-typed Amount field must be, as its message says (docs/integration.md "Errors"):
 * amounts travel as decimal strings, never JSON numbers.
 */
export const AMOUNT_TYPE_MESSAGE = 'must be a decimal string such as "100.00"';

/**
 * The zod `error` option of a request Amount schema: a value of the wrong JSON type (a number,
 * most often) reads {@link AMOUNT_TYPE_MESSAGE}; a missing one keeps zod's message, which
 * {@link fromZodError} turns into `<param> is required`. Use as `z.string({ error: amountTypeError })`.
 */
export const amountTypeError = (issue: { input?: unknown }): string | undefined =>
  issue.input === undefined ? undefined : AMOUNT_TYPE_MESSAGE;

/** The phrase naming a JSON type zod expected (`a string`, `an integer`, ...), for `<param> must be <phrase>`. */
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

/** The value of `input` at `path`, or undefined where the path leaves it. */
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
 * A zod error as a 400 validation_error naming its param (dotted, in the wire's own casing: the
 * schemas of each surface are written in it, so Surface B's params are camelCase as sent).
 *
 * `input` is the value that was validated (the JSON body, query or headers): with it, an issue about
 * a value that was sent is preferred to one about a value left out (a wrong type is the mistake
 * to name first), and a wrong JSON type reads `<param> must be <type>` (`source_amount must be a
 * decimal string such as "100.00"`, `channel must be a string`, `events must be an array`) instead
 * of `<param> is required`, which is kept for a value that is absent. An enum reads `<param> must
 * be one of: a, b`. Other issues read `<param>: <the schema's message>`.
 */
export function fromZodError(error: ZodError, input?: unknown): ApiError {
  const issues = error.issues;
  const sent = (i: (typeof issues)[number]) => input !== undefined && valueAt(input, i.path) !== undefined;
  const issue = issues.find(sent) ?? issues[0];
  let path = issue?.path ?? [];
  // A missing key inside an object reports the object; point at the key when zod names it.
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
