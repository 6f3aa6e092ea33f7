/**
 * The rail adapter seam (docs/rails.md "The seam"), implemented by every rail. A rail answers an
 * instruction `settled` (outcome known at submission), `accepted` (it reports later, as
 * {@link RailEvent}s addressed by its references) or `rejected` (spec failure code, `retryable`,
 * the rail's reason code). Amounts: integer minor units as decimal-digit strings; durations: ms;
 * instants: ISO 8601. Pure types, no I/O: workflow contracts may import it.
 */
import type { PayoutFailureCode } from '../domain/payout-state';
import type { RailInstructionStatus } from '../domain/rail-instructions';
import type { SeamModule, SeamSettings, SettingsOf } from '../seams/module';

export type RailEnvironment = 'sandbox' | 'live';

export interface RailCutOff {
  /** Local time of day, `HH:MM` (24 h). */
  time: string;
  timeZone: string;
}

export interface RailCapabilities {
  /** Catalog rail ids this adapter serves (channel.rail), e.g. `['sepa_credit_transfer']`; `['*']`: every rail (sandbox). */
  rails: readonly string[];
  currencies: readonly string[];
  mode: 'instant' | 'batched';
  /** `at_submission`: submit answers settled/rejected; `later`: submit answers accepted, events follow. */
  answers: 'at_submission' | 'later';
  cutOffs: readonly RailCutOff[];
  returnsAfterSettlement: boolean;
  /** How long after settlement a return is still expected, in ms (0 when none can follow). */
  returnWindowMs: number;
}

/** The rail's references of one payment, by which later events find their payout (each optional). */
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
  railFileId?: string;
}

export interface RailCreditor {
  /** As stored (our records keep the original; each rail converts to its character set). */
  name: string;
  kind: 'individual' | 'business';
  country: string | null;
  account: Record<string, string>;
}

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
  reference: string | null;
  /** References already given to this attempt (a retried submission reuses them). */
  existing: RailReferences | null;
}

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
      railReasonCode?: string;
      references: RailReferences;
    };

export interface RailEvent {
  /** Stable id of the event (for example `<rail file id>:<index>`): the payout ignores one it has seen. */
  id: string;
  type: 'accepted' | 'settled' | 'rejected' | 'returned';
  references: RailReferences;
  /** When the rail says it happened (booking time for `settled`), ISO 8601. */
  at: string;
  railReasonCode?: string;
  failureCode?: PayoutFailureCode;
  message?: string;
}

export type RailHealth = 'working' | 'not_configured' | 'failing';

/** A Verification of Payee request (docs/payee-verification.md): the creditor's name as typed and the account. */
export interface PayeeVerificationRequest {
  payoutId: string;
  environment: RailEnvironment;
  businessId: string;
  creditor: RailCreditor;
  /** The payout's amount, integer minor units of its currency (a decimal-digit string). */
  amountMinor: string;
}

/**
 * A Verification of Payee answer (EPC VOP: MTCH, CMTC, NMTC, NOAP). `nameReturned`: the holder's
 * name as the payee's bank knows it (close match); `reasonCode`: the rail's code (docs/payee-verification.md
 * "The pain.002 VoP report"). `unavailable`: no answer in time (asked again later).
 */
export type PayeeVerificationAnswer =
  | { result: 'match' | 'close_match' | 'no_match' | 'not_possible'; nameReturned: string | null; reasonCode: string }
  | { result: 'unavailable'; reason: string };

export interface RailAdapter {
  readonly name: string;
  readonly capabilities: RailCapabilities;
  /** Submits idempotently per (payoutId, attempt); throws {@link RailError} (transport failure: retryable). */
  submit(instruction: PaymentInstruction): Promise<RailSubmitResult>;
  status(references: RailReferences): Promise<RailEvent | null>;
  health(): Promise<RailHealth>;
  /** Verification of Payee, on rails that offer it (docs/payee-verification.md); never throws for a late bank: `unavailable`. */
  verifyPayee?(request: PayeeVerificationRequest): Promise<PayeeVerificationAnswer>;
}

/** A rail call that failed. `retryable`: calling again may succeed. */
export class RailError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly failureCode: PayoutFailureCode,
    readonly railReasonCode?: string,
  ) {
    super(message);
    this.name = 'RailError';
  }
}

/* The rail module (docs/rails.md "Adding a rail"): the core asks the registry for a rail's module and
 * never names a rail; a module is pure over its configuration and reaches I/O only via RailHost. */

export interface RailFailure {
  failureCode: PayoutFailureCode;
  message: string;
  retryable: boolean;
  railReasonCode: string | null;
}

/** A stored payment instruction (a rail_instructions row, read through the host). Amounts in minor units. */
export interface RailInstructionRecord {
  payoutId: string;
  attempt: number;
  rail: string;
  businessId: string;
  endToEndId: string;
  uetr: string | null;
  traceNumber: string | null;
  /** Rail-specific fields of the instruction, keyed as the rail stores them (ACH: routing_number, ...; a partner rail: its transfer id, quote, rate, fee). */
  details: Record<string, string> | null;
  amountMinor: bigint;
  currency: string;
  creditorName: string;
  creditorIban: string | null;
  creditorBic: string | null;
  remittance: string | null;
  status: RailInstructionStatus;
  railFileId: string | null;
  /** The instruction's group in its file (pain.001 PmtInfId, ACH batch). */
  paymentInformationId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type NewRailInstruction = Omit<RailInstructionRecord, 'status' | 'railFileId' | 'paymentInformationId' | 'createdAt' | 'updatedAt'> & {
  status?: 'queued' | 'accepted';
};

/** A bank file (a rail_files row). */
export interface RailFileRecord {
  id: string;
  rail: string;
  direction: 'outbound' | 'inbound';
  name: string;
  messageId: string | null;
  kind: string;
  status: 'written' | 'uploaded' | 'received' | 'processed' | 'quarantined';
  content: string | null;
  /** YYYY-MM-DD. */
  executionDate: string | null;
  settlesAt: Date | null;
}

/** A rail event to record (rail_events); `id` is stable (`<rail file id>:<index>`, partner
 * `<rail>:<transfer id>:<state>`), so an answer read twice is recorded once. */
export interface NewRailEvent {
  id: string;
  rail: string;
  railFileId: string;
  type: 'accepted' | 'settled' | 'rejected' | 'returned' | 'credit' | 'notification_of_change';
  payoutId: string | null;
  attempt: number | null;
  depositId: string | null;
  endToEndId: string | null;
  uetr: string | null;
  reasonCode: string | null;
  occurredAt: Date | null;
  /** The rail's own fields of the event, keyed as the rail stores them. */
  details: Record<string, unknown>;
}

export interface RailEventRecord extends NewRailEvent {
  dispatchedAt: Date | null;
  createdAt: Date;
}

export interface RailCredit {
  currency: string;
  amountMinor: string;
  accountIdentifier: string;
  /** The rail's id of the credit (deposits are credited once per external id). */
  externalId: string;
  senderName: string | null;
  reference: string | null;
}

/** What matching a bank's answer needs of an instruction: its key and its references. */
export type RailInstructionReference = Pick<RailInstructionRecord, 'payoutId' | 'attempt' | 'endToEndId' | 'uetr'>;

export interface RailStore {
  /** Locks inbound file `fileId` (skipping it when another worker holds it); its status, or null when held. */
  lockInboundFile(fileId: string): Promise<RailFileRecord['status'] | null>;
  /** Records `events` (ids already recorded are skipped); the ids newly recorded. */
  recordEvents(events: NewRailEvent[], now: Date): Promise<string[]>;
  /** Moves an instruction forward to `status` (never back; idempotent). */
  advanceInstruction(key: { payoutId: string; attempt: number }, status: RailInstructionRecord['status'], now: Date): Promise<void>;
  instructionByReference(refs: { endToEndId: string | null; uetr: string | null }): Promise<RailInstructionRecord | undefined>;
  /** The keys and references of the instructions whose EndToEndId is in `endToEndIds` or whose UETR is in `uetrs` (one query; a bank file's batch of answers). */
  instructionsByReferences(refs: { endToEndIds: string[]; uetrs: string[] }): Promise<RailInstructionReference[]>;
  /** Moves each of `keys` forward to `status` in one statement (never back; idempotent): {@link advanceInstruction} for a batch. */
  advanceInstructions(keys: Array<{ payoutId: string; attempt: number }>, status: RailInstructionRecord['status'], now: Date): Promise<void>;
  /** The instructions of `rail` with these trace numbers (one query per 1,000), locked for update when `lock`. */
  instructionsByTraces(rail: string, traceNumbers: string[], lock: boolean): Promise<RailInstructionRecord[]>;
  /** The instruction of `rail` whose `details[key]` is `value` (a partner's transfer id), locked for update when `lock`. */
  instructionByDetail(rail: string, key: string, value: string, lock: boolean): Promise<RailInstructionRecord | undefined>;
  instruction(payoutId: string, attempt: number): Promise<RailInstructionRecord | undefined>;
  /** Stores `instruction` once per (payout, attempt) and returns the stored row (a retry gets the first). */
  queueInstruction(instruction: NewRailInstruction, now: Date): Promise<RailInstructionRecord>;
  updateInstructionDetails(key: { payoutId: string; attempt: number }, details: Record<string, string>, now: Date): Promise<void>;
  /** Instructions of `rail` in `statuses` last updated before `before` (oldest first, at most `limit`), created at or after `createdSince` when given. */
  instructionsWaiting(rail: string, statuses: Array<RailInstructionRecord['status']>, before: Date, limit: number, createdSince?: Date): Promise<RailInstructionRecord[]>;
  instructionsOfFile(fileId: string): Promise<RailInstructionRecord[]>;
  /** Locks the instructions of file `fileId` no answer has ended (`in_file`, `accepted`). */
  lockUnansweredInstructionsOfFile(fileId: string): Promise<RailInstructionRecord[]>;
  file(fileId: string): Promise<RailFileRecord | undefined>;
  outboundFileByMessageId(messageId: string): Promise<RailFileRecord | undefined>;
  recordInboundFile(rail: string, name: string, content: Buffer): Promise<RailFileRecord>;
  finishedInboundNames(rail: string, names: string[]): Promise<Set<string>>;
  markInboundProcessed(fileId: string, info: { kind: string; messageId: string; transactions: number }, now: Date): Promise<void>;
  markInboundQuarantined(fileId: string, error: string, now: Date): Promise<void>;
  dueSettlementFiles(rail: string, now: Date): Promise<Array<{ id: string; settlesAt: Date | null }>>;
  markFileSettled(fileId: string, now: Date): Promise<void>;
  nextSequenceValue(name: string): Promise<string>;
}

export interface RailCounter {
  inc(labels: Record<string, string>, value?: number): void;
}

export interface RailHost {
  readonly rail: string;
  now(): Date;
  readonly log: { info(o: object, msg: string): void; warn(o: object, msg: string): void; error(o: object, msg: string): void };
  readonly store: RailStore;
  transaction<T>(fn: (store: RailStore) => Promise<T>): Promise<T>;
  readonly metrics: { railFiles: RailCounter; railReturns: RailCounter; railUnmatchedItems: RailCounter };
  ensureWindow(windowMs: number): Promise<void>;
  /** Reconciles `file` if it is a settlement account statement (docs/treasury.md); null otherwise. */
  readStatement(file: RailFileRecord): Promise<{ events: number; quarantined: boolean } | null>;
  correctRecipient(payoutId: string, correction: { fields: Record<string, string> } | { needsField: string }, meta: { correctionId: string; changeCode: string }): Promise<{ recipientId: string; status: string | null } | null>;
}

export interface InboxPollResult {
  files: number;
  events: number;
  quarantined: number;
  more: boolean;
}

export interface ComposedRailFile {
  name: string;
  messageId: string;
  kind: string;
  content: string;
  executionDate: string;
  /** ACH: `same_day` or `next_day`; null elsewhere. */
  settlementWindow: string | null;
  groupOf: (payoutId: string) => string;
}

export interface RailFileParts {
  /** Composes (and validates) the file of `rows`; throws when it cannot be written correctly (nothing is recorded). */
  compose(rows: RailInstructionRecord[], now: Date, fileId: string, log: RailHost['log']): Promise<ComposedRailFile>;
  /** Most transactions in one file (the bank's limit, RAIL_<RAIL>_MAX_FILE_TRANSACTIONS): a window with more becomes several files. */
  maxTransactions: number;
  /** Sends one composed file to the bank: `exists` when the bank already had the name (a crash between upload and record); throws when the bank cannot be reached (the activity retries). */
  upload(name: string, content: string): Promise<'uploaded' | 'exists'>;
  /** When the entries of a file uploaded at `uploadedAt` settle unless answered (ACH); null when the bank says so itself. */
  settlesAt(executionDate: string | null, uploadedAt: Date): Date | null;
}

export interface ConfiguredRail {
  /** The inbox poll interval in ms: file rails list the bank's outbox; a partner rail polls transfers its webhooks left waiting. */
  pollIntervalMs: number;
  adapter(host: RailHost): RailAdapter;
  /** One poll of the rail's answers (throws when the rail cannot be reached; the poller retries). */
  poll(host: RailHost): Promise<InboxPollResult>;
  files?: RailFileParts;
  readInboundFile?(host: RailHost, file: RailFileRecord, bankTime: Date | null): Promise<{ events: number; quarantined: boolean }>;
  latestArrival?(now: Date): Date | undefined;
  virtualAccounts?: { currency: string; issue(beneficiaryName: string): Record<string, string> };
  creditOf?(details: Record<string, unknown>, eventId: string): RailCredit | null;
  applyNotice?(host: RailHost, event: RailEventRecord): Promise<void>;
  /** Checks a partner webhook's signature and freshness and records its events idempotently. */
  receiveWebhook?(host: RailHost, request: RailWebhookRequest): Promise<RailWebhookResult>;
  partnerView?(details: Record<string, string>): Record<string, string | null>;
}

export interface RailWebhookRequest {
  headers: Record<string, string | undefined>;
  body: string;
}

/** What a webhook got: `accepted` (recorded, or a duplicate of one recorded), or `refused` with the HTTP status and why. */
export type RailWebhookResult =
  | { outcome: 'accepted'; recorded: number; duplicate: boolean }
  | { outcome: 'refused'; status: 400 | 401; code: string; message: string };

/** What a rail cannot carry: the recipient field (or `reference`) and why; `status` 422 when the recipient cannot be paid as saved (a partner's account requirements: 422 recipient_not_ready), else 400 validation_error. */
export interface RailCarriageProblem {
  field: string;
  message: string;
  status?: 422;
}

/* The statements part of a rail module (docs/treasury.md): the settlement account a connection gets
 * end-of-day statements for, and what our books expect on it. */

export type StatementFormat = 'camt.053' | 'bai2';

export interface SettlementMovement {
  /** `<CRDT|DBIT>:<reference>`, unique per account. */
  key: string;
  creditDebit: 'CRDT' | 'DBIT';
  /** Positive integer minor units. */
  amountMinor: bigint;
  at: Date;
  reference: string;
  description: string;
}

/** A rail event that may move the settlement account, with its payout attempt's references (or null); minor units. */
export interface SettlementEventRow {
  id: string;
  type: 'settled' | 'returned' | 'rejected' | 'credit';
  payout_id: string | null;
  deposit_id: string | null;
  reason_code: string | null;
  details: Record<string, unknown>;
  end_to_end_id: string | null;
  trace_number: string | null;
  amount_minor: bigint | null;
  at: Date;
}

export interface SettlementFileEntryRow {
  payout_id: string;
  trace_number: string | null;
  amount_minor: bigint;
  at: Date;
}

export interface SettlementRecords {
  events: readonly SettlementEventRow[];
  uploadedFileEntries(): Promise<SettlementFileEntryRow[]>;
}

/** One end-of-day statement as its rail module read it (docs/treasury.md); amounts in minor units, `keys` the `<CRDT|DBIT>:<reference>` it may match. */
export interface ParsedStatement {
  format: StatementFormat;
  accountId: string;
  currency: string;
  statementRef: string;
  sequence: bigint | null;
  statementDate: string;
  periodStart: Date | null;
  periodEnd: Date;
  openingMinor: bigint;
  closingMinor: bigint;
  entries: Array<{
    creditDebit: 'CRDT' | 'DBIT';
    amountMinor: bigint;
    typeCode: string | null;
    reference: string | null;
    keys: string[];
    bookedOn: string | null;
    description: string | null;
  }>;
}

/** What a rail module reads of the configuration: its own parsed variables (a superset, the whole config, may be handed in). */
export type RailSettingsValues<S extends SeamSettings> = SettingsOf<SeamModule<S>>;

export interface RailStatementParts<S extends SeamSettings = SeamSettings> {
  format: StatementFormat;
  currency: string;
  /** The configured account (an IBAN, compared without spaces, upper-cased; another account's statement is quarantined); null: not checked. */
  accountIdentifier(config: RailSettingsValues<S>): string | null;
  /** Whether `content` (an inbound file of this connection) is one of its statements. */
  recognises(content: string): boolean;
  /** Parses a statement; throws (the file is quarantined) when it does not parse or is not of the configured account. */
  read(content: string, config: RailSettingsValues<S>): ParsedStatement;
  /** The movements our books expect from `records`, in the order they were recorded (the first of a key wins). */
  expected(records: SettlementRecords): Promise<SettlementMovement[]>;
}

/**
 * A rail's module (docs/rails.md "Adding a rail"; docs/architecture.md "Seams"): a {@link SeamModule}
 * whose `id` is its connection id (`rail`) and whose `settings` are its RAIL_<RAIL>_* variables.
 */
export interface RailModule<S extends SeamSettings = SeamSettings> extends SeamModule<S> {
  /** Catalog rail id (channel.rail), e.g. `sepa_credit_transfer`, `ach`; a partner module may serve several (`rails`). */
  readonly rail: string;
  readonly alsoServes?: readonly string[];
  connect(config: RailSettingsValues<S>): { rail: ConfiguredRail; missing: [] } | { rail: null; missing: string[] };
  failureOf(type: 'rejected' | 'returned', reasonCode: string | null): RailFailure;
  /** What a live payout to `details` cannot carry on this rail (checked at creation); null when it can. */
  carriageProblem?(details: Record<string, unknown>, reference: string | null, channel: string): RailCarriageProblem | null;
  statements?: RailStatementParts<S>;
}
