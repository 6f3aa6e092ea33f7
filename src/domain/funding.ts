/** Getting paid, the pure part (docs/getting-paid.md): virtual accounts, deposits, payment requests. No I/O. */
import { composeIBAN, friendlyFormatIBAN } from 'ibantools';
import { divDecimal, parseAmount, parseDecimal, percentOf, USDC, divRound } from './money';

export const VIRTUAL_ACCOUNT_CURRENCIES = ['USD', 'EUR', 'MXN'] as const;
export type VirtualAccountCurrency = (typeof VIRTUAL_ACCOUNT_CURRENCIES)[number];

export const VIRTUAL_ACCOUNT_RAIL: Readonly<Record<VirtualAccountCurrency, 'ach_usd' | 'sepa_eur' | 'spei_mxn'>> = {
  USD: 'ach_usd',
  EUR: 'sepa_eur',
  MXN: 'spei_mxn',
};

/** Whether payers must quote a reference: EUR accounts share a collection IBAN, so the reference identifies the owner. */
export const REFERENCE_REQUIRED: Readonly<Record<VirtualAccountCurrency, boolean>> = { USD: false, EUR: true, MXN: false };

export const SANDBOX_BANK_NAME: Readonly<Record<VirtualAccountCurrency, string>> = {
  USD: 'Sandbox Bank, N.A.',
  EUR: 'Sandbox Bank AG',
  MXN: 'Banco Sandbox, S.A.',
};

export const SANDBOX_BIC = 'SBXBDEFFXXX';
export const SANDBOX_BLZ = '37040044';
export const SANDBOX_CLABE_PREFIX = '646180';

/** Virtual account details: USD account_number/routing_number, EUR iban/bic, MXN clabe, plus bank and beneficiary names. */
export type VirtualAccountDetails = Record<string, string>;

export function abaCheckDigit(first8: string): number {
  const d = [...first8].map(Number);
  const sum = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5]);
  return (10 - (sum % 10)) % 10;
}

export const SANDBOX_ROUTING_NUMBER = `01100001${abaCheckDigit('01100001')}`;

export function clabeCheckDigit(first17: string): number {
  const weights = [3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(first17[i]) * weights[i % 3]) % 10;
  return (10 - (sum % 10)) % 10;
}

/** Sandbox details of a new account built from `digits` (>= 12 random digits, supplied by the caller) with valid check digits. */
export function sandboxAccountDetails(currency: VirtualAccountCurrency, beneficiaryName: string, digits: string): VirtualAccountDetails {
  if (!/^[0-9]{12,}$/.test(digits)) throw new Error('sandboxAccountDetails: need at least 12 random digits');
  const bank_name = SANDBOX_BANK_NAME[currency];
  if (currency === 'USD') {
    return { account_number: digits.slice(0, 12), routing_number: SANDBOX_ROUTING_NUMBER, account_type: 'checking', bank_name, beneficiary_name: beneficiaryName };
  }
  if (currency === 'EUR') {
    const iban = composeIBAN({ countryCode: 'DE', bban: `${SANDBOX_BLZ}${digits.slice(0, 10)}` });
    if (!iban) throw new Error('sandboxAccountDetails: could not compose an IBAN');
    return { iban, bic: SANDBOX_BIC, bank_name, beneficiary_name: beneficiaryName };
  }
  const first17 = `${SANDBOX_CLABE_PREFIX}${digits.slice(0, 11)}`;
  return { clabe: `${first17}${clabeCheckDigit(first17)}`, bank_name, beneficiary_name: beneficiaryName };
}

export const ACCOUNT_IDENTIFIER_FIELD: Readonly<Record<VirtualAccountCurrency, 'account_number' | 'iban' | 'clabe'>> = {
  USD: 'account_number',
  EUR: 'iban',
  MXN: 'clabe',
};

/** The details as returned (spec: "returned masked"): the account identifier keeps its last four characters. */
export function maskAccountDetails(currency: VirtualAccountCurrency, details: VirtualAccountDetails): VirtualAccountDetails {
  const field = ACCOUNT_IDENTIFIER_FIELD[currency];
  const out = { ...details };
  const v = out[field];
  if (typeof v === 'string') out[field] = v.length <= 4 ? '••••' : `••••${v.slice(-4)}`;
  return out;
}

export function displayIdentifier(field: string, value: string): string {
  return field === 'iban' ? (friendlyFormatIBAN(value) ?? value) : value;
}

export const DEPOSIT_SOURCES = ['virtual_account', 'crypto', 'card'] as const;
export type DepositSource = (typeof DEPOSIT_SOURCES)[number];

/** Deposit statuses (docs/states.md "Deposit"); `dropped` = an on-chain transfer lost before finality, never credited. */
export const DEPOSIT_STATUSES = ['received', 'credited', 'dropped'] as const;
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number];

export const DEPOSIT_INITIAL_STATUS: DepositStatus = 'received';
export const DEPOSIT_TRANSITIONS: Readonly<Record<DepositStatus, readonly DepositStatus[]>> = {
  received: ['credited', 'dropped'],
  credited: [],
  dropped: [],
};
/** Event on entering a deposit status (Surface A renders `deposit.credited` as `deposit.received`). */
export const DEPOSIT_EVENT_ON_ENTER = {
  received: 'deposit.received',
  credited: 'deposit.credited',
  dropped: 'deposit.dropped',
} as const satisfies Readonly<Record<DepositStatus, string>>;

export const DEPOSIT_MATCH_RESULTS = ['matched', 'ambiguous', 'no_match', 'not_applicable'] as const;
export type DepositMatchResult = (typeof DEPOSIT_MATCH_RESULTS)[number];

export const DEPOSIT_CURRENCIES = ['USD', 'EUR', 'MXN', 'USDC'] as const;

/** FX spread percent of a deposit by currency, taken from the converted amount; rounds up. */
export const DEPOSIT_FX_SPREAD_PERCENT: Readonly<Record<string, string>> = { USD: '0', USDC: '0', EUR: '0.25', MXN: '0.35' };
export const CARD_DEPOSIT_FEE = { percent: '2.9', flat: '0.30' } as const;

/** A priced deposit; amounts in micro-USDC; net <= 0 means too small to credit. */
export interface DepositConversion {
  rate: string;
  grossAmount: bigint;
  fees: { fxSpread: bigint; processing: bigint; total: bigint };
  netAmount: bigint;
}

/**
 * Converts `amount` (minor units of `currency`) to micro-USDC at `rate` and takes the fees; with
 * `spreadBps` (live) the spread is that many basis points, rounded up. A card deposit's processing
 * fee is `processorFee` (the card processor's fee, minor units of `currency`) converted at `rate`,
 * rounded up, when given (a live card payment, docs/getting-paid.md "Card payments"); else
 * {@link CARD_DEPOSIT_FEE}. BigInt throughout.
 */
export function convertDeposit(
  amount: bigint,
  currency: string,
  rate: string,
  source: DepositSource,
  spreadBps?: number,
  processorFee?: bigint | null,
): DepositConversion {
  const grossAmount = currency === USDC ? amount : divDecimal(amount, parseDecimal(rate), USDC, currency, 'floor');
  const fxSpread =
    spreadBps !== undefined && currency !== USDC
      ? divRound(grossAmount * BigInt(spreadBps), 10_000n, 'ceil')
      : percentOf(grossAmount, DEPOSIT_FX_SPREAD_PERCENT[currency] ?? '0');
  const processing =
    source !== 'card'
      ? 0n
      : processorFee !== undefined && processorFee !== null
        ? currency === USDC
          ? processorFee
          : divDecimal(processorFee, parseDecimal(rate), USDC, currency, 'ceil')
        : percentOf(grossAmount, CARD_DEPOSIT_FEE.percent) + parseAmount(CARD_DEPOSIT_FEE.flat, USDC);
  const total = fxSpread + processing;
  return { rate: currency === USDC ? '1' : rate, grossAmount, fees: { fxSpread, processing, total }, netAmount: grossAmount - total };
}

/** Payment request statuses (docs/states.md "Payment request"); a deposit for a closed request is credited as plain. */
export const PAYMENT_REQUEST_STATUSES = ['open', 'paid', 'expired'] as const;
export type PaymentRequestStatus = (typeof PAYMENT_REQUEST_STATUSES)[number];

export const PAYMENT_REQUEST_INITIAL_STATUS: PaymentRequestStatus = 'open';
/** Allowed next statuses; match and expiry are both guarded `WHERE status = 'open'`, so exactly one wins. */
export const PAYMENT_REQUEST_TRANSITIONS: Readonly<Record<PaymentRequestStatus, readonly PaymentRequestStatus[]>> = {
  open: ['paid', 'expired'],
  paid: [],
  expired: [],
};
/** Event on entering a payment request status; `payment_request.expired` is our extension. */
export const PAYMENT_REQUEST_EVENT_ON_ENTER = {
  paid: 'payment_request.paid',
  expired: 'payment_request.expired',
} as const satisfies Readonly<Partial<Record<PaymentRequestStatus, string>>>;

export const PAYMENT_METHOD_TYPES = ['bank_transfer', 'card', 'crypto'] as const;
export type PaymentMethodType = (typeof PAYMENT_METHOD_TYPES)[number];

/** A payer's reference for comparison: trimmed, whitespace collapsed, upper case. */
export function normaliseReference(ref: string | null | undefined): string | null {
  if (ref === null || ref === undefined) return null;
  const v = ref.trim().replace(/\s+/g, ' ').toUpperCase();
  return v.length ? v : null;
}
