/** The core throws {@link ApiError}; each surface renders it in its own error shape (spec "Errors"). */

/** Spec "Errors" codes plus the documented extensions. */
export type ErrorCode =
  | 'validation_error'
  | 'channel_unavailable'
  | 'amount_out_of_range'
  | 'insufficient_balance'
  | 'verification_required'
  | 'idempotency_conflict'
  | 'idempotency_in_flight'
  | 'approval_required'
  | 'payee_confirmation_not_pending'
  | 'quote_expired'
  | 'recipient_not_ready'
  | 'policy_exceeded'
  | 'payouts_blocked'
  | 'authentication_required'
  | 'invalid_api_key'
  | 'api_key_revoked'
  | 'api_key_expired'
  | 'api_key_inactive'
  | 'last_owner_key'
  | 'environment_mismatch'
  | 'permission_denied'
  | 'self_approval_forbidden'
  | 'items_need_review'
  | 'invalid_state'
  | 'stale_revision'
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'rate_limited'
  | 'internal_error'
  | 'service_unavailable'
  | 'invalid_phone'
  | 'recipient_country_unsupported'
  | 'amount_below_minimum'
  | 'disbursement_already_claimed'
  | 'external_id_taken'
  | 'virtual_account_not_found'
  | 'processor_unavailable';

/** Fields the core names by a domain key (Surface A spelling); each surface maps a key to its param name. */
export const FIELD_KEYS = {
  createdAfter: 'created_after',
  createdBefore: 'created_before',
  expirePreviousIn: 'expire_previous_in',
  deliveryId: 'delivery_id',
  cursor: 'cursor',
  idempotencyKey: 'Idempotency-Key',
} as const;
export type FieldKey = keyof typeof FIELD_KEYS;

export interface ErrorField {
  key: FieldKey;
  message: (name: string) => string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly param: string | null = null,
    readonly details?: Record<string, unknown>,
    readonly field?: ErrorField,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** An error about field `key`; a surface renders `param` and a function `message` with its own name of the field. */
export function fieldError(status: number, code: ErrorCode, key: FieldKey, message: string | ((name: string) => string), details?: Record<string, unknown>): ApiError {
  const render = typeof message === 'string' ? () => message : message;
  return new ApiError(status, code, render(FIELD_KEYS[key]), FIELD_KEYS[key], details, { key, message: render });
}

export const fieldValidationError = (key: FieldKey, message: string | ((name: string) => string)) => fieldError(400, 'validation_error', key, message);

/** 400 validation_error naming `param` (dotted path). */
export const validationError = (param: string | null, message: string) =>
  new ApiError(400, 'validation_error', message, param);

/** 404 not_found (absent from the caller's business and environment). */
export const notFound = (what: string, id: string, param: string | null = 'id') =>
  new ApiError(404, 'not_found', `No ${what} with id '${id}'`, param);
