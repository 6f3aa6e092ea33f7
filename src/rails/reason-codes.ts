/**
 * The one table that maps each rail's own reason codes to the spec's payout failure codes (spec
 * "Payout" failure.code; docs/rails.md "Status and reason codes"). A payout's `failure` keeps the
 * rail's code next to the mapped one (`failure.rail_reason_code`), so nothing the bank said is lost.
 *
 * ISO 20022 codes are the External Status Reason codes (ExternalStatusReason1Code) used in
 * pain.002 `StsRsnInf/Rsn/Cd` and camt.054 `RtrInf/Rsn/Cd`. Pure data: no I/O.
 */
import type { PayoutFailureCode } from '../domain/payout-state';

/** How one rail reason code ends a payout. */
export interface RailReasonMapping {
  failureCode: PayoutFailureCode;
  /** Whether a new attempt may succeed (a technical refusal) or not (the account is wrong). */
  retryable: boolean;
  /** failure.message shown to the integrator. */
  message: string;
}

/** ISO 20022 reason codes (pain.002 rejections and camt.054 returns) -> spec failure codes. */
export const ISO20022_REASON_CODES: Readonly<Record<string, RailReasonMapping>> = {
  AC01: { failureCode: 'invalid_destination', retryable: false, message: 'The bank reports the account identifier (IBAN) as incorrect (AC01)' },
  AC03: { failureCode: 'invalid_destination', retryable: false, message: 'The bank reports the creditor account as invalid (AC03)' },
  AC04: { failureCode: 'invalid_destination', retryable: false, message: 'The bank reports the creditor account as closed (AC04)' },
  AC06: { failureCode: 'recipient_rejected_by_provider', retryable: false, message: 'The bank reports the creditor account as blocked (AC06)' },
  AG01: { failureCode: 'recipient_rejected_by_provider', retryable: false, message: 'The creditor account does not accept this kind of transfer (AG01)' },
  AM04: { failureCode: 'provider_declined', retryable: true, message: 'Our bank declined the transfer for insufficient funds on the settlement account (AM04)' },
  AM05: { failureCode: 'provider_declined', retryable: false, message: 'The bank refused the transfer as a duplicate (AM05)' },
  BE04: { failureCode: 'invalid_destination', retryable: false, message: 'The bank reports the creditor address as missing or incorrect (BE04)' },
  FF01: { failureCode: 'provider_declined', retryable: true, message: 'The bank refused the file format (FF01)' },
  MD07: { failureCode: 'recipient_rejected_by_provider', retryable: false, message: 'The bank reports the account holder as deceased (MD07)' },
  MS02: { failureCode: 'recipient_rejected_by_provider', retryable: false, message: 'The creditor returned the transfer for a reason it did not give (MS02)' },
  MS03: { failureCode: 'provider_declined', retryable: false, message: 'The bank returned the transfer for a reason it did not give (MS03)' },
  RC01: { failureCode: 'invalid_destination', retryable: false, message: 'The bank reports the BIC as incorrect (RC01)' },
  RR04: { failureCode: 'provider_declined', retryable: false, message: 'The bank refused the transfer for regulatory reasons (RR04)' },
};

/**
 * The mapping of ISO 20022 reason `code` (e.g. `AC01`); an unknown or missing code maps to
 * `provider_declined`, not retryable, with the code in the message.
 */
export function mapIso20022Reason(code: string | null | undefined): RailReasonMapping & { railReasonCode: string | null } {
  const known = code ? ISO20022_REASON_CODES[code] : undefined;
  if (known) return { ...known, railReasonCode: code ?? null };
  return {
    failureCode: 'provider_declined',
    retryable: false,
    message: code ? `The bank refused the transfer (reason ${code})` : 'The bank refused the transfer without a reason code',
    railReasonCode: code ?? null,
  };
}

/** The failure a returned transfer ends with: failure.code refunded_by_provider, the bank's reason kept. */
export function returnFailure(code: string | null | undefined): { failureCode: PayoutFailureCode; message: string; railReasonCode: string | null } {
  const mapped = code ? ISO20022_REASON_CODES[code] : undefined;
  return {
    failureCode: 'refunded_by_provider',
    message: `The bank returned the funds after delivery${mapped ? `: ${mapped.message}` : code ? ` (reason ${code})` : ''}; the amount and fees were credited back`,
    railReasonCode: code ?? null,
  };
}
