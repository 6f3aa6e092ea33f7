/** The live ach_usd rail (docs/rails.md "ACH"): `submit` queues one credit entry and answers `accepted` or `rejected`. */
import { isValidAbaRouting } from '../../domain/recipients';
import type { PaymentInstruction, RailAdapter, RailCapabilities, RailHealth, RailReferences, RailSubmitResult } from '../adapter';
import { toNachaText } from '../nacha/text';
import { sftpHealth } from '../sftp/transport';
import { ACH_RAIL, type AchRailConfig } from './config';

/** PPD to an individual, CCD to a business. */
export type AchSecCode = 'PPD' | 'CCD';

/** Amount in integer cents. */
export interface QueuedAchEntry {
  payoutId: string;
  attempt: number;
  businessId: string;
  /** `<payout id>-<attempt>`. */
  endToEndId: string;
  amountMinor: string;
  currency: 'USD';
  creditorName: string;
  routingNumber: string;
  accountNumber: string;
  accountType: 'checking' | 'savings';
  secCode: AchSecCode;
  remittance: string | null;
}

export interface AchRailDeps {
  /** Once per (payoutId, attempt), with a new trace number; returns what is stored. */
  enqueue(entry: QueuedAchEntry): Promise<{ traceNumber: string; endToEndId: string }>;
}

export const NACHA_NAME_WIDTH = 22;
export const NACHA_ADDENDA_WIDTH = 80;

/** The offending recipient field and why, or null when it can be carried. */
export function achCarriageProblem(input: { name: string; routingNumber: string | null | undefined; accountNumber: string | null | undefined; accountType: string | null | undefined }): { field: 'holder_name' | 'routing_number' | 'account_number' | 'account_type'; message: string } | null {
  if (!input.routingNumber || !isValidAbaRouting(input.routingNumber)) return { field: 'routing_number', message: 'routing_number is not a valid ABA routing number (check digit)' };
  if (!input.accountNumber || !/^[0-9A-Za-z]{1,17}$/.test(input.accountNumber)) return { field: 'account_number', message: 'account_number must be 1 to 17 digits or letters' };
  if (input.accountType !== 'checking' && input.accountType !== 'savings') return { field: 'account_type', message: 'account_type must be checking or savings' };
  if (toNachaText(input.name, NACHA_NAME_WIDTH) === '') return { field: 'holder_name', message: 'holder_name has no character a NACHA file can carry' };
  return null;
}

export function achRailAdapter(config: AchRailConfig, deps: AchRailDeps): RailAdapter {
  const capabilities: RailCapabilities = {
    rails: [ACH_RAIL],
    currencies: ['USD'],
    mode: 'batched',
    answers: 'later',
    cutOffs: config.sameDayCutOff ? [{ time: config.sameDayCutOff, timeZone: config.timeZone }] : [],
    returnsAfterSettlement: true,
    returnWindowMs: config.returnWindowMs,
  };
  return {
    name: 'ach_nacha',
    capabilities,
    async submit(instruction: PaymentInstruction): Promise<RailSubmitResult> {
      const account = instruction.creditor.account;
      const problem =
        instruction.currency !== 'USD'
          ? { field: 'currency', message: `the ACH rail pays USD only, not ${instruction.currency}` }
          : achCarriageProblem({ name: instruction.creditor.name, routingNumber: account.routing_number, accountNumber: account.account_number, accountType: account.account_type });
      if (problem) {
        return { outcome: 'rejected', failureCode: 'invalid_destination', message: `The ACH file cannot carry this payout: ${problem.message}`, retryable: false, retryAfterMs: 0, references: {} };
      }
      const stored = await deps.enqueue({
        payoutId: instruction.payoutId,
        attempt: instruction.attempt,
        businessId: instruction.businessId,
        endToEndId: `${instruction.payoutId.replace('_', '-')}-${instruction.attempt}`,
        amountMinor: instruction.amountMinor,
        currency: 'USD',
        creditorName: instruction.creditor.name,
        routingNumber: account.routing_number!,
        accountNumber: account.account_number!,
        accountType: account.account_type as 'checking' | 'savings',
        secCode: instruction.creditor.kind === 'business' ? 'CCD' : 'PPD',
        remittance: instruction.reference,
      });
      const references: RailReferences = { providerReference: stored.traceNumber, traceNumber: stored.traceNumber, endToEndId: stored.endToEndId };
      return { outcome: 'accepted', references };
    },
    async status() {
      return null;
    },
    async health(): Promise<RailHealth> {
      return sftpHealth(config.sftp);
    },
  };
}
