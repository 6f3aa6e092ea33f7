/** The live ach_usd rail (docs/rails.md "ACH"): `submit` queues one credit entry and answers `accepted` or `rejected`. */
import { isValidAbaRouting } from '../../domain/recipients';
import type { RailAdapter, RailCapabilities, RailReferences } from '../adapter';
import { fileRailAdapter } from '../file-rail';
import { toNachaText } from '../nacha/text';
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

/** The live ach_usd adapter: the shared file-rail `submit` (src/rails/file-rail/) with ACH's carriage rules and references. */
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
  return fileRailAdapter<QueuedAchEntry>({
    name: 'ach_nacha',
    capabilities,
    sftp: config.sftp,
    currency: 'USD',
    railLabel: 'ACH',
    fileLabel: 'The ACH file',
    carriageProblem: (instruction) => {
      const account = instruction.creditor.account;
      return achCarriageProblem({ name: instruction.creditor.name, routingNumber: account.routing_number, accountNumber: account.account_number, accountType: account.account_type });
    },
    entry: (instruction) => ({
      payoutId: instruction.payoutId,
      attempt: instruction.attempt,
      businessId: instruction.businessId,
      endToEndId: `${instruction.payoutId.replace('_', '-')}-${instruction.attempt}`,
      amountMinor: instruction.amountMinor,
      currency: 'USD',
      creditorName: instruction.creditor.name,
      routingNumber: instruction.creditor.account.routing_number!,
      accountNumber: instruction.creditor.account.account_number!,
      accountType: instruction.creditor.account.account_type as 'checking' | 'savings',
      secCode: instruction.creditor.kind === 'business' ? 'CCD' : 'PPD',
      remittance: instruction.reference,
    }),
    enqueue: async (entry): Promise<RailReferences> => {
      const stored = await deps.enqueue(entry);
      return { providerReference: stored.traceNumber, traceNumber: stored.traceNumber, endToEndId: stored.endToEndId };
    },
  });
}
