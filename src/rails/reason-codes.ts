/**
 * Each rail's reason codes -> the spec's payout failure codes (docs/rails.md "Status and reason
 * codes"); the rail's code is kept as `failure.rail_reason_code`. Pure data.
 */
import type { PayoutFailureCode } from '../domain/payout-state';
import { isValidAbaRouting } from '../domain/recipients';

export interface RailReasonMapping {
  failureCode: PayoutFailureCode;
  /** Whether a new attempt may succeed (a technical refusal) or not (the account is wrong). */
  retryable: boolean;
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

/** An unknown or missing ISO 20022 code maps to `provider_declined`, not retryable. */
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

// ---------------------------------------------------------------------------------------- ACH

/** NACHA return reason titles (Nacha Operating Rules, Appendix Four); unassigned codes absent. */
export const ACH_RETURN_TITLES: Readonly<Record<string, string>> = {
  R01: 'Insufficient Funds',
  R02: 'Account Closed',
  R03: 'No Account/Unable to Locate Account',
  R04: 'Invalid Account Number Structure',
  R05: 'Unauthorized Debit to Consumer Account Using Corporate SEC Code',
  R06: "Returned per ODFI's Request",
  R07: 'Authorization Revoked by Customer',
  R08: 'Payment Stopped',
  R09: 'Uncollected Funds',
  R10: "Customer Advises Originator is Not Known to Receiver and/or Originator is Not Authorized by Receiver to Debit Receiver's Account",
  R11: 'Customer Advises Entry Not in Accordance with the Terms of the Authorization',
  R12: 'Account Sold to Another DFI',
  R13: 'Invalid ACH Routing Number',
  R14: 'Representative Payee Deceased or Unable to Continue in That Capacity',
  R15: 'Beneficiary or Account Holder (Other Than a Representative Payee) Deceased',
  R16: 'Account Frozen/Entry Returned per OFAC Instruction',
  R17: 'File Record Edit Criteria/Entry with Invalid Account Number Initiated Under Questionable Circumstances/Return of Improperly-Initiated Reversal',
  R18: 'Improper Effective Entry Date',
  R19: 'Amount Field Error',
  R20: 'Non-Transaction Account',
  R21: 'Invalid Company Identification',
  R22: 'Invalid Individual ID Number',
  R23: 'Credit Entry Refused by Receiver',
  R24: 'Duplicate Entry',
  R25: 'Addenda Error',
  R26: 'Mandatory Field Error',
  R27: 'Trace Number Error',
  R28: 'Routing Number Check Digit Error',
  R29: 'Corporate Customer Advises Not Authorized',
  R30: 'RDFI Not Participant in Check Truncation Program',
  R31: 'Permissible Return Entry (CCD and CTX only)',
  R32: 'RDFI Non-Settlement',
  R33: 'Return of XCK Entry',
  R34: 'Limited Participation DFI',
  R35: 'Return of Improper Debit Entry',
  R36: 'Return of Improper Credit Entry',
  R37: 'Source Document Presented for Payment',
  R38: 'Stop Payment on Source Document',
  R39: 'Improper Source Document/Source Document Presented for Payment',
  R40: 'Return of ENR Entry by Federal Government Agency',
  R41: 'Invalid Transaction Code (ENR only)',
  R42: 'Routing Number/Check Digit Error (ENR only)',
  R43: 'Invalid DFI Account Number (ENR only)',
  R44: 'Invalid Individual ID Number/Identification Number (ENR only)',
  R45: 'Invalid Individual Name/Company Name (ENR only)',
  R46: 'Invalid Representative Payee Indicator (ENR only)',
  R47: 'Duplicate Enrollment (ENR only)',
  R50: 'State Law Affecting RCK Acceptance',
  R51: 'Item related to RCK Entry is Ineligible or RCK Entry is Improper',
  R52: 'Stop Payment on Item Related to RCK Entry',
  R53: 'Item and RCK Entry Presented for Payment',
  R61: 'Misrouted Return',
  R62: 'Return of Erroneous or Reversing Debit',
  R67: 'Duplicate Return',
  R68: 'Untimely Return',
  R69: 'Field Error(s)',
  R70: 'Permissible Return Entry Not Accepted/Return Not Requested by ODFI',
  R71: 'Misrouted Dishonored Return',
  R72: 'Untimely Dishonored Return',
  R73: 'Timely Original Return',
  R74: 'Corrected Return',
  R75: 'Return Not a Duplicate',
  R76: 'No Errors Found',
  R77: 'Non-Acceptance of R62 Dishonored Return',
  R80: 'IAT Entry Coding Error',
  R81: 'Non-Participant in IAT Program',
  R82: 'Invalid Foreign Receiving DFI Identification',
  R83: 'Foreign Receiving DFI Unable to Settle',
  R84: 'Entry Not Processed by Gateway',
  R85: 'Incorrectly Coded Outbound International Payment',
};

const ACH_INVALID_DESTINATION = new Set(['R02', 'R03', 'R04', 'R12', 'R13', 'R17', 'R20']);
const ACH_RECIPIENT_REJECTED = new Set(['R05', 'R06', 'R07', 'R10', 'R11', 'R14', 'R15', 'R16', 'R23', 'R29']);
const ACH_RETRYABLE = new Set(['R01', 'R09']);

function achReturnMessage(code: string, title: string): string {
  return `The receiving bank returned the entry: ${sentenceCase(title)} (${code})`;
}

function sentenceCase(title: string): string {
  return title.replace(/\b([A-Z])(?=[a-z])/g, (c) => c.toLowerCase());
}

/**
 * NACHA return codes -> spec failure codes (docs/rails-ach.md "Return reason codes"); retryable only
 * R01 and R09 (funds, not the account).
 */
export const ACH_RETURN_CODES: Readonly<Record<string, RailReasonMapping>> = Object.fromEntries(
  Object.entries(ACH_RETURN_TITLES).map(([code, title]): [string, RailReasonMapping] => [
    code,
    {
      failureCode: ACH_INVALID_DESTINATION.has(code) ? 'invalid_destination' : ACH_RECIPIENT_REJECTED.has(code) ? 'recipient_rejected_by_provider' : 'provider_declined',
      retryable: ACH_RETRYABLE.has(code),
      message: achReturnMessage(code, title),
    },
  ]),
);

/** An unknown or missing NACHA code maps to `provider_declined`, not retryable. Never throws. */
export function mapAchReturn(code: string | null | undefined): RailReasonMapping & { railReasonCode: string | null } {
  const known = code ? ACH_RETURN_CODES[code] : undefined;
  if (known) return { ...known, railReasonCode: code ?? null };
  return {
    failureCode: 'provider_declined',
    retryable: false,
    message: code ? `The receiving bank returned the entry (reason ${code})` : 'The receiving bank returned the entry without a reason code',
    railReasonCode: code ?? null,
  };
}

/** An ACH credit returned after settlement: `refunded_by_provider`, the NACHA code kept. */
export function achReturnAfterSettlementFailure(code: string | null | undefined): { failureCode: PayoutFailureCode; message: string; railReasonCode: string | null } {
  const title = code ? ACH_RETURN_TITLES[code] : undefined;
  const reason = title ? `: ${sentenceCase(title)} (${code})` : code ? ` (reason ${code})` : '';
  return {
    failureCode: 'refunded_by_provider',
    message: `The receiving bank returned the funds after settlement${reason}; the amount and fees were credited back`,
    railReasonCode: code ?? null,
  };
}

export type AchNocField = 'account_number' | 'routing_number' | 'account_type';

export interface AchNocMapping {
  /** Official title (Appendix Five). */
  description: string;
  fields: AchNocField[];
}

/** NACHA change codes -> the recipient fields their corrected data sets (docs/rails-ach.md "Notification of change codes"). */
export const ACH_NOC_CODES: Readonly<Record<string, AchNocMapping>> = {
  C01: { description: 'Incorrect DFI Account Number', fields: ['account_number'] },
  C02: { description: 'Incorrect Routing Number', fields: ['routing_number'] },
  C03: { description: 'Incorrect Routing Number and Incorrect DFI Account Number', fields: ['routing_number', 'account_number'] },
  C04: { description: 'Incorrect Individual Name/Receiving Company Name', fields: [] },
  C05: { description: 'Incorrect Transaction Code', fields: ['account_type'] },
  C06: { description: 'Incorrect DFI Account Number and Incorrect Transaction Code', fields: ['account_number', 'account_type'] },
  C07: { description: 'Incorrect Routing Number, Incorrect DFI Account Number, and Incorrect Transaction Code', fields: ['routing_number', 'account_number', 'account_type'] },
  C08: { description: 'Incorrect Receiving DFI Identification (IAT only)', fields: [] },
  C09: { description: 'Incorrect Individual Identification Number', fields: [] },
  C10: { description: 'Incorrect Company Name', fields: [] },
  C11: { description: 'Incorrect Company Identification', fields: [] },
  C12: { description: 'Incorrect Company Name and Company Identification', fields: [] },
  C13: { description: 'Addenda Format Error', fields: [] },
  C14: { description: 'Incorrect SEC Code for Outbound International Payment', fields: [] },
};

const ACH_NOC_UNSUPPORTED: Readonly<Record<string, string>> = {
  C04: 'receiver_name',
  C08: 'receiving_dfi_identification',
  C09: 'individual_identification_number',
  C10: 'company_name',
  C11: 'company_identification',
  C12: 'company_name_and_identification',
  C13: 'addenda_format',
  C14: 'sec_code',
};

function accountTypeOf(transactionCode: string): 'checking' | 'savings' | null {
  if (/^2[234]$/.test(transactionCode)) return 'checking';
  if (/^3[234]$/.test(transactionCode)) return 'savings';
  return null;
}

/**
 * Reads addenda 98's 29-character corrected data (positions from 1; Appendix Five) for `changeCode`
 * into recipient fields, or `{ ambiguous: field }` for a malformed value, a code we do not apply or
 * an unknown code (`change_code`). Never throws.
 */
export function achNocCorrection(changeCode: string, correctedData: string): { fields: Partial<Record<AchNocField, string>> } | { ambiguous: string } {
  const data = correctedData.padEnd(29, ' ');
  const at = (from: number, to: number) => data.slice(from - 1, to).trim();
  const unsupported = ACH_NOC_UNSUPPORTED[changeCode];
  if (unsupported) return { ambiguous: unsupported };
  const parts: Array<[AchNocField, string]> = [];
  switch (changeCode) {
    case 'C01': parts.push(['account_number', at(1, 17)]); break;
    case 'C02': parts.push(['routing_number', at(1, 9)]); break;
    case 'C03': parts.push(['routing_number', at(1, 9)], ['account_number', at(13, 29)]); break;
    case 'C05': parts.push(['account_type', at(1, 2)]); break;
    case 'C06': parts.push(['account_number', at(1, 17)], ['account_type', at(21, 22)]); break;
    case 'C07': parts.push(['routing_number', at(1, 9)], ['account_number', at(10, 26)], ['account_type', at(27, 28)]); break;
    default: return { ambiguous: 'change_code' };
  }
  const fields: Partial<Record<AchNocField, string>> = {};
  for (const [field, raw] of parts) {
    if (field === 'account_number') {
      if (!/^[0-9A-Za-z]{1,17}$/.test(raw)) return { ambiguous: field };
      fields[field] = raw;
    } else if (field === 'routing_number') {
      if (!isValidAbaRouting(raw)) return { ambiguous: field };
      fields[field] = raw;
    } else {
      const type = accountTypeOf(raw);
      if (!type) return { ambiguous: field };
      fields[field] = type;
    }
  }
  return { fields };
}
