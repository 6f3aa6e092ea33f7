/**
 * The rail adapter seam (docs/rails.md "The seam"): the one interface every rail implements, the
 * sandbox simulator and the live bank rails alike. Modelled on formancehq/payments' connector
 * interface (a payout answers with a final outcome or a reference to wait on) and on this
 * repository's notification provider (src/core/notifications/provider.ts: an interface, a lookup,
 * one error with `retryable`).
 *
 * A rail answers a payment instruction in one of three ways:
 * - `settled`: the outcome is known at submission (the sandbox simulator, instant rails); the
 *   answer says when the money lands (`landsInMs`) and whether the funds come back later.
 * - `accepted`: the rail took the instruction and will report later (a bank file rail): the
 *   payout waits for {@link RailEvent}s addressed by the rail's references.
 * - `rejected`: refused, with the spec's failure code, `retryable`, and the rail's own reason code.
 *
 * Units: amounts are integer minor units of `currency` as decimal-digit strings (JSON-safe, never
 * floating point); durations are milliseconds; instants are ISO 8601 strings.
 *
 * This module is pure types and one error class: no I/O, so workflow contracts may import it.
 */
import type { PayoutFailureCode } from '../domain/payout-state';

/** Environment a rail serves. */
export type RailEnvironment = 'sandbox' | 'live';

/** A cut-off: instructions collected before it leave in that window's file. */
export interface RailCutOff {
  /** Local time of day, `HH:MM` (24 h). */
  time: string;
  /** IANA time zone of `time`, e.g. `Europe/Berlin`. */
  timeZone: string;
}

/** What a rail can do (spec "Channel" `arrival`, `status` derive from it). */
export interface RailCapabilities {
  /** Catalog rail ids this adapter serves (channel.rail), e.g. `['sepa_credit_transfer']`; `['*']`: every rail (sandbox). */
  rails: readonly string[];
  /** ISO 4217 currencies it pays out in. */
  currencies: readonly string[];
  /** `instant`: one call per payment; `batched`: collected per cut-off window into files. */
  mode: 'instant' | 'batched';
  /** `at_submission`: submit answers settled/rejected; `later`: submit answers accepted, events follow. */
  answers: 'at_submission' | 'later';
  /** Cut-offs of a batched rail (empty for instant rails). */
  cutOffs: readonly RailCutOff[];
  /** Whether a `returned` event can follow a settlement (SEPA returns, ACH returns). */
  returnsAfterSettlement: boolean;
  /** How long after settlement a return is still expected, in ms (0 when none can follow). */
  returnWindowMs: number;
}

/**
 * The rail's references of one payment: how later events find their payout. Every field is
 * optional; a rail fills those it has (ISO 20022: messageId, paymentInformationId, endToEndId,
 * uetr; ACH: traceNumber; sandbox: providerReference).
 */
export interface RailReferences {
  providerReference?: string;
  messageId?: string;
  paymentInformationId?: string;
  /** ISO 20022 EndToEndId, at most 35 characters. */
  endToEndId?: string;
  /** ISO 20022 UETR, a UUID v4. */
  uetr?: string;
  /** ACH trace number, 15 digits. */
  traceNumber?: string;
  /** The rail file that carried the payment (`rf_…`), once it is written. */
  railFileId?: string;
}

/** The creditor side of an instruction (what the recipient's saved details give). */
export interface RailCreditor {
  /** As stored (our records keep the original; each rail converts to its character set). */
  name: string;
  kind: 'individual' | 'business';
  country: string | null;
  /** Channel-specific account fields as saved on the recipient (iban, bic, account_number, routing_number, ...). */
  account: Record<string, string>;
}

/** One payment instruction: one attempt of one payout. */
export interface PaymentInstruction {
  payoutId: string;
  /** 1-based attempt number; (payoutId, attempt) is the idempotency key of the submission. */
  attempt: number;
  environment: RailEnvironment;
  businessId: string;
  channel: string;
  rail: string;
  /** Integer minor units of `currency`, as a decimal-digit string. */
  amountMinor: string;
  currency: string;
  creditor: RailCreditor;
  /** The payout's reference (remittance information; sandbox magic values). */
  reference: string | null;
  /** References already given to this attempt (a retried submission reuses them). */
  existing: RailReferences | null;
}

/** What `submit` answered. */
export type RailSubmitResult =
  | {
      outcome: 'settled';
      references: RailReferences;
      /** Milliseconds until the money lands (the workflow waits with a durable timer; 0: now). */
      landsInMs: number;
      /** Set when the rail already knows the funds come back after landing (sandbox refunds). */
      returned?: { afterMs: number; failureCode: PayoutFailureCode; message: string; railReasonCode?: string };
    }
  | { outcome: 'accepted'; references: RailReferences }
  | {
      outcome: 'rejected';
      failureCode: PayoutFailureCode;
      message: string;
      retryable: boolean;
      /** Backoff before another attempt, in ms (meaningful when `retryable`). */
      retryAfterMs: number;
      /** The rail's own reason code (`AC01`, `R03`), when it gave one. */
      railReasonCode?: string;
      references: RailReferences;
    };

/** A later answer of a rail, addressed by the rail's references. */
export interface RailEvent {
  /** Stable id of the event (for example `<rail file id>:<index>`): the payout ignores one it has seen. */
  id: string;
  type: 'accepted' | 'settled' | 'rejected' | 'returned';
  references: RailReferences;
  /** When the rail says it happened (booking time for `settled`), ISO 8601. */
  at: string;
  /** The rail's reason code (rejected, returned). */
  railReasonCode?: string;
  /** The spec failure code it maps to (rejected, returned), from the reason-code table. */
  failureCode?: PayoutFailureCode;
  message?: string;
}

/** Whether a rail's connection can be used now. */
export type RailHealth = 'working' | 'not_configured' | 'failing';

/** A rail (sandbox simulator, ISO 20022 over SFTP, ACH). */
export interface RailAdapter {
  /** Stable name, stored with attempts: `sandbox`, `iso20022_sftp`, `ach_nacha`. */
  readonly name: string;
  readonly capabilities: RailCapabilities;
  /**
   * Submits one instruction, idempotently per (payoutId, attempt). Throws {@link RailError} when
   * the rail could not be asked (a transport failure: retryable) or refused outright.
   */
  submit(instruction: PaymentInstruction): Promise<RailSubmitResult>;
  /** Asks the rail for the status of a payment it accepted; null when it has nothing to say yet. */
  status(references: RailReferences): Promise<RailEvent | null>;
  /** Whether the configured connection is working (a channel on this rail is `live` only then). */
  health(): Promise<RailHealth>;
}

/** A rail call that failed. `retryable`: calling again may succeed. */
export class RailError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** The spec failure code this maps to. */
    readonly failureCode: PayoutFailureCode,
    /** The rail's own reason code, when it gave one. */
    readonly railReasonCode?: string,
  ) {
    super(message);
    this.name = 'RailError';
  }
}
