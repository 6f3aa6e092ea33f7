/**
 * The live sepa_eur rail: SEPA Credit Transfers in ISO 20022 files over SFTP (docs/rails.md). A
 * payout's attempt becomes one credit-transfer transaction: `submit` checks what the file must
 * carry and queues the transaction (through `deps.enqueue`, which core backs with the
 * rail_instructions table); the rail's file workflow collects the queue per window into one
 * pain.001, and the bank answers later in pain.002 and camt.054 files, read by the inbox poller.
 * So `submit` answers `accepted` with the transaction's references, or `rejected` when the
 * instruction cannot be carried.
 */
import { createHash } from 'node:crypto';
import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import type { PaymentInstruction, RailAdapter, RailCapabilities, RailHealth, RailReferences, RailSubmitResult } from '../adapter';
import { toSepaText } from '../iso20022/sepa-text';
import { sftpHealth } from '../sftp/transport';
import { SEPA_RAIL, type SepaRailConfig } from './config';

/** One credit transfer as queued for the next file (amounts in integer minor units of EUR). */
export interface QueuedTransfer {
  payoutId: string;
  attempt: number;
  businessId: string;
  endToEndId: string;
  uetr: string;
  amountMinor: string;
  currency: 'EUR';
  /** As stored on the recipient; the file carries its SEPA transliteration. */
  creditorName: string;
  creditorIban: string;
  creditorBic: string | null;
  remittance: string | null;
}

/** What the adapter needs from core. */
export interface SepaRailDeps {
  /** Queues `transfer` for the next file, once per (payoutId, attempt); returns the references stored. */
  enqueue(transfer: QueuedTransfer): Promise<{ endToEndId: string; uetr: string }>;
}

/** Longest creditor name (pain.001 `Cdtr/Nm`) and remittance text (`RmtInf/Ustrd`), in characters. */
export const SEPA_MAX_NAME = 70;
export const SEPA_MAX_REMITTANCE = 140;

/**
 * The transaction's EndToEndId: `<payout id>-<attempt>` with the id's `_` as `-` (the SEPA
 * character set has no underscore), e.g. `po-01j9z3k4m5n6p7q8r9s0t1v2w3-1`: at most 35 characters
 * (payout ids are 29). Deterministic, so a retried submission queues the same transaction.
 */
export function sepaEndToEndId(payoutId: string, attempt: number): string {
  const id = `${payoutId.replace('_', '-')}-${attempt}`;
  if (id.length > 35) throw new Error(`EndToEndId ${id} is longer than 35 characters`);
  return id;
}

/** The MsgId of outbound file `fileId` (`rf_…` -> `rf-…`; the SEPA character set has no underscore). */
export function sepaMessageId(fileId: string): string {
  return fileId.replace('_', '-');
}

/** The transaction's UETR: a UUID v4 derived from the payout id and attempt (stable across retries). */
export function sepaUetr(payoutId: string, attempt: number): string {
  const h = createHash('sha256').update(`uetr:${payoutId}:${attempt}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Whether a creditor and remittance text can be carried in a SEPA file: a valid IBAN (and BIC when
 * given), a name and a text that convert to the SEPA character set within their lengths. Returns
 * the offending field (`holder_name`, `iban`, `bic`, `reference`) and why, or null when it can.
 */
export function sepaCarriageProblem(input: { name: string; iban: string | null | undefined; bic?: string | null; remittance?: string | null }): { field: 'holder_name' | 'iban' | 'bic' | 'reference'; message: string } | null {
  const iban = electronicFormatIBAN(input.iban ?? '') ?? '';
  if (!isValidIBAN(iban)) return { field: 'iban', message: 'iban is not a valid IBAN' };
  if (input.bic && !isValidBIC(input.bic)) return { field: 'bic', message: 'bic is not a valid BIC' };
  const name = toSepaText(input.name, SEPA_MAX_NAME);
  if (!name.ok) return { field: 'holder_name', message: `holder_name cannot be carried by a SEPA transfer: ${name.reason}` };
  if (input.remittance) {
    const text = toSepaText(input.remittance, SEPA_MAX_REMITTANCE);
    if (!text.ok) return { field: 'reference', message: `reference cannot be carried by a SEPA transfer: ${text.reason}` };
  }
  return null;
}

/** The SEPA file rail over one configuration. */
export function sepaRailAdapter(config: SepaRailConfig, deps: SepaRailDeps): RailAdapter {
  const capabilities: RailCapabilities = {
    rails: [SEPA_RAIL],
    currencies: ['EUR'],
    mode: 'batched',
    answers: 'later',
    cutOffs: [{ time: config.cutOff, timeZone: config.timeZone }],
    returnsAfterSettlement: true,
    returnWindowMs: config.returnWindowMs,
  };
  return {
    name: 'iso20022_sftp',
    capabilities,
    async submit(instruction: PaymentInstruction): Promise<RailSubmitResult> {
      const account = instruction.creditor.account;
      const problem =
        instruction.currency !== 'EUR'
          ? { field: 'currency', message: `the SEPA rail pays EUR only, not ${instruction.currency}` }
          : sepaCarriageProblem({ name: instruction.creditor.name, iban: account.iban, bic: account.bic, remittance: instruction.reference });
      if (problem) {
        return { outcome: 'rejected', failureCode: 'invalid_destination', message: `The bank file cannot carry this payout: ${problem.message}`, retryable: false, retryAfterMs: 0, references: {} };
      }
      const stored = await deps.enqueue({
        payoutId: instruction.payoutId,
        attempt: instruction.attempt,
        businessId: instruction.businessId,
        endToEndId: sepaEndToEndId(instruction.payoutId, instruction.attempt),
        uetr: sepaUetr(instruction.payoutId, instruction.attempt),
        amountMinor: instruction.amountMinor,
        currency: 'EUR',
        creditorName: instruction.creditor.name,
        creditorIban: electronicFormatIBAN(account.iban!)!,
        creditorBic: account.bic ?? null,
        remittance: instruction.reference,
      });
      const references: RailReferences = { providerReference: stored.endToEndId, endToEndId: stored.endToEndId, uetr: stored.uetr };
      return { outcome: 'accepted', references };
    },
    async status() {
      // A bank file rail has no status call: its answers arrive as files (the inbox poller).
      return null;
    },
    async health(): Promise<RailHealth> {
      return sftpHealth(config.sftp);
    },
  };
}
