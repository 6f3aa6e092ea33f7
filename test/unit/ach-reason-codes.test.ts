import { describe, expect, it } from 'vitest';
import { PAYOUT_FAILURE_CODES } from '../../src/domain/payout-state';
import {
  ACH_NOC_CODES,
  ACH_RETURN_CODES,
  achNocCorrection,
  achReturnAfterSettlementFailure,
  ISO20022_REASON_CODES,
  mapAchReturn,
} from '../../src/rails/reason-codes';

describe('ACH_RETURN_CODES', () => {
  it('covers R01..R85 as the Nacha Rules assign them, each with a spec failure code and the code in its message', () => {
    const codes = Object.keys(ACH_RETURN_CODES);
    expect(codes[0]).toBe('R01');
    expect(codes.at(-1)).toBe('R85');
    // R01-R47, R50-R53, R61-R62, R67-R77, R80-R85 (R48, R49, R54-R60, R63-R66, R78, R79 are not assigned)
    const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => `R${String(a + i).padStart(2, '0')}`);
    expect(codes).toEqual([...range(1, 47), ...range(50, 53), ...range(61, 62), ...range(67, 77), ...range(80, 85)]);
    for (const [code, m] of Object.entries(ACH_RETURN_CODES)) {
      expect(PAYOUT_FAILURE_CODES).toContain(m.failureCode);
      expect(m.message).toMatch(new RegExp(`\\(${code}\\)$`));
    }
  });

  it.each([
    ['R02', 'invalid_destination'],
    ['R03', 'invalid_destination'],
    ['R04', 'invalid_destination'],
    ['R12', 'invalid_destination'],
    ['R13', 'invalid_destination'],
    ['R17', 'invalid_destination'],
    ['R20', 'invalid_destination'],
    ['R05', 'recipient_rejected_by_provider'],
    ['R06', 'recipient_rejected_by_provider'],
    ['R07', 'recipient_rejected_by_provider'],
    ['R10', 'recipient_rejected_by_provider'],
    ['R11', 'recipient_rejected_by_provider'],
    ['R14', 'recipient_rejected_by_provider'],
    ['R15', 'recipient_rejected_by_provider'],
    ['R16', 'recipient_rejected_by_provider'],
    ['R23', 'recipient_rejected_by_provider'],
    ['R29', 'recipient_rejected_by_provider'],
    ['R01', 'provider_declined'],
    ['R08', 'provider_declined'],
    ['R09', 'provider_declined'],
    ['R24', 'provider_declined'],
    ['R19', 'provider_declined'],
    ['R85', 'provider_declined'],
  ])('%s -> %s', (code, failureCode) => {
    expect(mapAchReturn(code)).toMatchObject({ failureCode, railReasonCode: code, retryable: code === 'R01' || code === 'R09' });
  });

  it('messages use the official titles', () => {
    expect(mapAchReturn('R03').message).toBe('The receiving bank returned the entry: no account/unable to locate account (R03)');
    expect(mapAchReturn('R01').message).toBe('The receiving bank returned the entry: insufficient funds (R01)');
    expect(mapAchReturn('R16').message).toBe('The receiving bank returned the entry: account frozen/entry returned per OFAC instruction (R16)');
    expect(mapAchReturn('R34').message).toBe('The receiving bank returned the entry: limited participation DFI (R34)');
    expect(mapAchReturn('R30').message).toBe('The receiving bank returned the entry: RDFI not participant in check truncation program (R30)');
  });

  it('an unknown or missing code: provider_declined, not retryable, the code kept', () => {
    expect(mapAchReturn('R99')).toEqual({ failureCode: 'provider_declined', retryable: false, message: 'The receiving bank returned the entry (reason R99)', railReasonCode: 'R99' });
    expect(mapAchReturn(null)).toEqual({ failureCode: 'provider_declined', retryable: false, message: 'The receiving bank returned the entry without a reason code', railReasonCode: null });
    expect(mapAchReturn(undefined).railReasonCode).toBeNull();
  });

  it('leaves the ISO 20022 table as it was', () => {
    expect(Object.keys(ISO20022_REASON_CODES)).toEqual(['AC01', 'AC03', 'AC04', 'AC06', 'AG01', 'AM04', 'AM05', 'BE04', 'FF01', 'MD07', 'MS02', 'MS03', 'RC01', 'RR04']);
  });
});

describe('achReturnAfterSettlementFailure', () => {
  it('refunded_by_provider naming the reason', () => {
    expect(achReturnAfterSettlementFailure('R02')).toEqual({
      failureCode: 'refunded_by_provider',
      message: 'The receiving bank returned the funds after settlement: account closed (R02); the amount and fees were credited back',
      railReasonCode: 'R02',
    });
    expect(achReturnAfterSettlementFailure('R98').message).toBe('The receiving bank returned the funds after settlement (reason R98); the amount and fees were credited back');
    expect(achReturnAfterSettlementFailure(null)).toMatchObject({ failureCode: 'refunded_by_provider', railReasonCode: null });
  });
});

describe('ACH_NOC_CODES and achNocCorrection', () => {
  it('C01..C14 with the fields their corrected data sets', () => {
    expect(Object.keys(ACH_NOC_CODES)).toEqual(['C01', 'C02', 'C03', 'C04', 'C05', 'C06', 'C07', 'C08', 'C09', 'C10', 'C11', 'C12', 'C13', 'C14']);
    expect(ACH_NOC_CODES.C01).toEqual({ description: 'Incorrect DFI Account Number', fields: ['account_number'] });
    expect(ACH_NOC_CODES.C07!.fields).toEqual(['routing_number', 'account_number', 'account_type']);
    expect(ACH_NOC_CODES.C04!.fields).toEqual([]);
  });

  it('reads each supported code from its positions', () => {
    expect(achNocCorrection('C01', '4455667788')).toEqual({ fields: { account_number: '4455667788' } });
    expect(achNocCorrection('C01', '4455667788                   ')).toEqual({ fields: { account_number: '4455667788' } });
    expect(achNocCorrection('C02', '091000019')).toEqual({ fields: { routing_number: '091000019' } });
    expect(achNocCorrection('C03', '091000019   4455667788')).toEqual({ fields: { routing_number: '091000019', account_number: '4455667788' } });
    expect(achNocCorrection('C05', '32')).toEqual({ fields: { account_type: 'savings' } });
    expect(achNocCorrection('C05', '22')).toEqual({ fields: { account_type: 'checking' } });
    expect(achNocCorrection('C05', '37')).toEqual({ ambiguous: 'account_type' }); // a debit code
    expect(achNocCorrection('C06', `${'123456789'.padEnd(17)}   32`)).toEqual({ fields: { account_number: '123456789', account_type: 'savings' } });
    expect(achNocCorrection('C07', `091000019${'55566'.padEnd(17)}22`)).toEqual({ fields: { routing_number: '091000019', account_number: '55566', account_type: 'checking' } });
  });

  it('answers ambiguous for a bad value, an unsupported or an unknown code', () => {
    expect(achNocCorrection('C02', '091000018')).toEqual({ ambiguous: 'routing_number' }); // check digit
    expect(achNocCorrection('C01', '')).toEqual({ ambiguous: 'account_number' });
    expect(achNocCorrection('C01', '1234-5678')).toEqual({ ambiguous: 'account_number' });
    expect(achNocCorrection('C03', '091000019')).toEqual({ ambiguous: 'account_number' });
    expect(achNocCorrection('C04', 'JANE DOE')).toEqual({ ambiguous: 'receiver_name' });
    expect(achNocCorrection('C08', '123')).toEqual({ ambiguous: 'receiving_dfi_identification' });
    expect(achNocCorrection('C09', '123')).toEqual({ ambiguous: 'individual_identification_number' });
    expect(achNocCorrection('C13', '')).toEqual({ ambiguous: 'addenda_format' });
    expect(achNocCorrection('C99', '1')).toEqual({ ambiguous: 'change_code' });
  });
});
