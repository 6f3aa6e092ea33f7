/** The live sepa_eur rail (docs/rails.md): `submit` queues one transaction per attempt and answers `accepted` or `rejected`. */
import { createHash } from 'node:crypto';
import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import type { RailAdapter, RailCapabilities, RailReferences } from '../adapter';
import { fileRailAdapter } from '../file-rail';
import { toSepaText } from '../iso20022/sepa-text';
import { SEPA_RAIL, type SepaRailConfig } from './config';

/** Amounts in integer minor units of EUR. */
export interface QueuedTransfer {
  payoutId: string;
  attempt: number;
  businessId: string;
  endToEndId: string;
  uetr: string;
  amountMinor: string;
  currency: 'EUR';
  creditorName: string;
  creditorIban: string;
  creditorBic: string | null;
  remittance: string | null;
}

export interface SepaRailDeps {
  /** Once per (payoutId, attempt); returns the references stored. */
  enqueue(transfer: QueuedTransfer): Promise<{ endToEndId: string; uetr: string }>;
}

/** Longest `Cdtr/Nm` and `RmtInf/Ustrd`, in characters. */
export const SEPA_MAX_NAME = 70;
export const SEPA_MAX_REMITTANCE = 140;

/** `<payout id>-<attempt>` with `_` as `-` (at most 35 characters); deterministic across retries. */
export function sepaEndToEndId(payoutId: string, attempt: number): string {
  const id = `${payoutId.replace('_', '-')}-${attempt}`;
  if (id.length > 35) throw new Error(`EndToEndId ${id} is longer than 35 characters`);
  return id;
}

/** `rf_…` -> `rf-…` (the SEPA character set has no underscore). */
export function sepaMessageId(fileId: string): string {
  return fileId.replace('_', '-');
}

/** A UUID v4 derived from payout id and attempt (stable across retries). */
export function sepaUetr(payoutId: string, attempt: number): string {
  const h = createHash('sha256').update(`uetr:${payoutId}:${attempt}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The offending field (`holder_name`, `iban`, `bic`, `reference`) and why, or null when it can be carried. */
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

/** The live sepa_eur adapter: the shared file-rail `submit` (src/rails/file-rail/) with SEPA's carriage rules and references. */
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
  return fileRailAdapter<QueuedTransfer>({
    name: 'iso20022_sftp',
    capabilities,
    sftp: config.sftp,
    currency: 'EUR',
    railLabel: 'SEPA',
    fileLabel: 'The bank file',
    carriageProblem: (instruction) => {
      const account = instruction.creditor.account;
      return sepaCarriageProblem({ name: instruction.creditor.name, iban: account.iban, bic: account.bic, remittance: instruction.reference });
    },
    entry: (instruction) => ({
      payoutId: instruction.payoutId,
      attempt: instruction.attempt,
      businessId: instruction.businessId,
      endToEndId: sepaEndToEndId(instruction.payoutId, instruction.attempt),
      uetr: sepaUetr(instruction.payoutId, instruction.attempt),
      amountMinor: instruction.amountMinor,
      currency: 'EUR',
      creditorName: instruction.creditor.name,
      creditorIban: electronicFormatIBAN(instruction.creditor.account.iban!)!,
      creditorBic: instruction.creditor.account.bic ?? null,
      remittance: instruction.reference,
    }),
    enqueue: async (transfer): Promise<RailReferences> => {
      const stored = await deps.enqueue(transfer);
      return { providerReference: stored.endToEndId, endToEndId: stored.endToEndId, uetr: stored.uetr };
    },
  });
}
