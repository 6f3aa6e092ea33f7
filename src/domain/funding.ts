/**
 * Getting paid, the pure part (docs/getting-paid.md): virtual account currencies and rails, sandbox
 * account details that pass real validators, deposit conversion and fees, and the state tables of
 * deposits and payment requests. No I/O: workflows and the core import it.
 */
import { composeIBAN, friendlyFormatIBAN } from 'ibantools';
import { divDecimal, formatAmount, parseAmount, parseDecimal, percentOf, USDC, divRound } from './money';

/** Currencies a virtual account holds (spec "VirtualAccount": currency enum USD, EUR, MXN). */
export const VIRTUAL_ACCOUNT_CURRENCIES = ['USD', 'EUR', 'MXN'] as const;
/** One of {@link VIRTUAL_ACCOUNT_CURRENCIES}. */
export type VirtualAccountCurrency = (typeof VIRTUAL_ACCOUNT_CURRENCIES)[number];

/** The rail (= payout channel id) that brings money into a virtual account of each currency. */
export const VIRTUAL_ACCOUNT_RAIL: Readonly<Record<VirtualAccountCurrency, 'ach_usd' | 'sepa_eur' | 'spei_mxn'>> = {
  USD: 'ach_usd',
  EUR: 'sepa_eur',
  MXN: 'spei_mxn',
};

/**
 * Whether payers must quote a reference on transfers to an account of this currency. EUR (SEPA)
 * accounts: yes — the sandbox's SEPA partner books every business on a collection IBAN and the
 * remittance information is what ties a transfer to a payment request. USD (ACH) and MXN (SPEI)
 * accounts have dedicated account numbers / CLABEs, so the account alone identifies the owner.
 */
export const REFERENCE_REQUIRED: Readonly<Record<VirtualAccountCurrency, boolean>> = { USD: false, EUR: true, MXN: false };

/** Name of the sandbox's partner bank per currency (shown in the details). */
export const SANDBOX_BANK_NAME: Readonly<Record<VirtualAccountCurrency, string>> = {
  USD: 'Sandbox Bank, N.A.',
  EUR: 'Sandbox Bank AG',
  MXN: 'Banco Sandbox, S.A.',
};

/** The sandbox partner's BIC (valid structure: bank SBXB, country DE, location FF). */
export const SANDBOX_BIC = 'SBXBDEFFXXX';
/** The sandbox partner's German bank code (BLZ) inside every sandbox IBAN. */
export const SANDBOX_BLZ = '37040044';
/** The sandbox partner's CLABE bank (3 digits) and plaza (3 digits) prefix. */
export const SANDBOX_CLABE_PREFIX = '646180';

/**
 * Details of a virtual account, per currency (whole; the API masks the account identifier):
 * - USD (ach_usd): account_number (12 digits), routing_number (ABA, checksum valid), account_type
 *   `checking`, bank_name, beneficiary_name;
 * - EUR (sepa_eur): iban (German IBAN, mod-97 valid), bic, bank_name, beneficiary_name;
 * - MXN (spei_mxn): clabe (18 digits, check digit valid), bank_name, beneficiary_name.
 */
export type VirtualAccountDetails = Record<string, string>;

/** ABA check digit of the first 8 digits (weights 3, 7, 1). */
export function abaCheckDigit(first8: string): number {
  const d = [...first8].map(Number);
  const sum = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5]);
  return (10 - (sum % 10)) % 10;
}

/** The sandbox partner's ABA routing number (Federal Reserve district 01; checksum valid). */
export const SANDBOX_ROUTING_NUMBER = `01100001${abaCheckDigit('01100001')}`;

/** CLABE check digit of the first 17 digits (weights 3, 7, 1; each product mod 10). */
export function clabeCheckDigit(first17: string): number {
  const weights = [3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(first17[i]) * weights[i % 3]) % 10;
  return (10 - (sum % 10)) % 10;
}

/**
 * Sandbox account details of a new virtual account. `digits` is a string of at least 12 random
 * decimal digits (the caller's randomness keeps this function pure); the account identifier
 * (account number, IBAN, CLABE) is built from it with correct check digits.
 */
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

/** The field of the details that identifies the account (the one masked in the API). */
export const ACCOUNT_IDENTIFIER_FIELD: Readonly<Record<VirtualAccountCurrency, 'account_number' | 'iban' | 'clabe'>> = {
  USD: 'account_number',
  EUR: 'iban',
  MXN: 'clabe',
};

/**
 * The details as the API returns them (spec: "returned masked"): the account identifier keeps its
 * last four characters (`••••1234`, like recipients); routing number, BIC, bank and beneficiary
 * names are not secret and stay whole (a payer needs them, and they name the bank, not the account).
 */
export function maskAccountDetails(currency: VirtualAccountCurrency, details: VirtualAccountDetails): VirtualAccountDetails {
  const field = ACCOUNT_IDENTIFIER_FIELD[currency];
  const out = { ...details };
  const v = out[field];
  if (typeof v === 'string') out[field] = v.length <= 4 ? '••••' : `••••${v.slice(-4)}`;
  return out;
}

/** An IBAN grouped in fours for people (`DE89 3704 …`); other values unchanged. */
export function displayIdentifier(field: string, value: string): string {
  return field === 'iban' ? (friendlyFormatIBAN(value) ?? value) : value;
}

// ---------------------------------------------------------------------------------------------
// Deposits

/** Where a deposit came from: a bank transfer into a virtual account, an on-chain transfer, a card top-up. */
export const DEPOSIT_SOURCES = ['virtual_account', 'crypto', 'card'] as const;
/** One of {@link DEPOSIT_SOURCES}. */
export type DepositSource = (typeof DEPOSIT_SOURCES)[number];

/**
 * Deposit statuses: `received` (money reached the account; sandbox: POST /sandbox/deposits), then
 * `credited` (the deposit workflow's credit step posted the net amount external -> available and ran
 * the matching), or `dropped` (an on-chain transfer seen at `confirmed` that disappeared before
 * finality: never credited; docs/getting-paid.md "Crypto deposits"). Transitions and events:
 * {@link DEPOSIT_TRANSITIONS}, {@link DEPOSIT_EVENT_ON_ENTER}; shown in docs/states.md "Deposit" (generated).
 */
export const DEPOSIT_STATUSES = ['received', 'credited', 'dropped'] as const;
/** One of {@link DEPOSIT_STATUSES}. */
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number];

/** The status a deposit is created in (src/core/funding/deposits.ts `receiveDeposit`). */
export const DEPOSIT_INITIAL_STATUS: DepositStatus = 'received';
/** Allowed next statuses of each deposit status (the credit step's guarded UPDATE, src/core/funding/deposits.ts). */
export const DEPOSIT_TRANSITIONS: Readonly<Record<DepositStatus, readonly DepositStatus[]>> = {
  received: ['credited', 'dropped'],
  credited: [],
  dropped: [],
};
/** Core event written on entering a deposit status (Surface A receives `deposit.credited` as `deposit.received`: src/domain/webhook-events.ts). */
export const DEPOSIT_EVENT_ON_ENTER = {
  received: 'deposit.received',
  credited: 'deposit.credited',
  dropped: 'deposit.dropped',
} as const satisfies Readonly<Record<DepositStatus, string>>;

/** How a credited deposit related to payment requests (extension field `match`). */
export const DEPOSIT_MATCH_RESULTS = ['matched', 'ambiguous', 'no_match', 'not_applicable'] as const;
/** One of {@link DEPOSIT_MATCH_RESULTS}. */
export type DepositMatchResult = (typeof DEPOSIT_MATCH_RESULTS)[number];

/** Currencies a deposit may arrive in: a virtual account's, or USDC (crypto). Card top-ups are USD. */
export const DEPOSIT_CURRENCIES = ['USD', 'EUR', 'MXN', 'USDC'] as const;

/**
 * Fees of a deposit, in micro-USDC, taken from the converted amount (the balance is credited the
 * rest): the FX spread of the conversion (USD and USDC 0 %, EUR 0.25 %, MXN 0.35 %) and, for card
 * top-ups, card processing (2.9 % + 0.30 USDC). Percentages round up, like payout fees.
 */
export const DEPOSIT_FX_SPREAD_PERCENT: Readonly<Record<string, string>> = { USD: '0', USDC: '0', EUR: '0.25', MXN: '0.35' };
/** Card processing fee of a card top-up deposit: percent and flat (USDC). */
export const CARD_DEPOSIT_FEE = { percent: '2.9', flat: '0.30' } as const;

/** A priced deposit: gross = amount at the mid-market rate; net = what the balance is credited. */
export interface DepositConversion {
  /** Mid-market rate: 1 USDC buys `rate` units of the deposit currency. */
  rate: string;
  /** Micro-USDC, the amount converted at `rate`, rounded down. */
  grossAmount: bigint;
  fees: { fxSpread: bigint; processing: bigint; total: bigint };
  /** grossAmount - fees.total, micro-USDC; <= 0 means the deposit is too small to credit. */
  netAmount: bigint;
}

/**
 * Converts `amount` (minor units of `currency`) to micro-USDC at `rate` (sandbox: src/sandbox/fx.ts;
 * live: the ask side of the live rate, docs/rates.md) and takes the fees above. With `spreadBps`
 * (live) the FX spread is that many basis points of the converted amount, rounded up, instead of
 * {@link DEPOSIT_FX_SPREAD_PERCENT}. Exact: BigInt throughout.
 */
export function convertDeposit(amount: bigint, currency: string, rate: string, source: DepositSource, spreadBps?: number): DepositConversion {
  const grossAmount = currency === USDC ? amount : divDecimal(amount, parseDecimal(rate), USDC, currency, 'floor');
  const fxSpread =
    spreadBps !== undefined && currency !== USDC
      ? divRound(grossAmount * BigInt(spreadBps), 10_000n, 'ceil')
      : percentOf(grossAmount, DEPOSIT_FX_SPREAD_PERCENT[currency] ?? '0');
  const processing =
    source === 'card' ? percentOf(grossAmount, CARD_DEPOSIT_FEE.percent) + parseAmount(CARD_DEPOSIT_FEE.flat, USDC) : 0n;
  const total = fxSpread + processing;
  return { rate: currency === USDC ? '1' : rate, grossAmount, fees: { fxSpread, processing, total }, netAmount: grossAmount - total };
}

/** Fees of a deposit on the wire (USDC decimal strings). */
export interface WireDepositFees {
  fx_spread: string;
  processing: string;
  total: string;
  currency: 'USDC';
}

/** {@link DepositConversion} fees as decimal strings. */
export function formatDepositFees(f: DepositConversion['fees']): WireDepositFees {
  return { fx_spread: formatAmount(f.fxSpread, USDC), processing: formatAmount(f.processing, USDC), total: formatAmount(f.total, USDC), currency: 'USDC' };
}

// ---------------------------------------------------------------------------------------------
// Payment requests

/**
 * Payment request statuses (spec shows `open`): `open` until exactly one matching deposit pays it
 * (`paid`) or its workflow's timer reaches `expires_at` (`expired`). Transitions and events:
 * {@link PAYMENT_REQUEST_TRANSITIONS}, {@link PAYMENT_REQUEST_EVENT_ON_ENTER}; shown in
 * docs/states.md "Payment request" (generated). A deposit that arrives for an expired or paid request
 * is credited as a plain deposit.
 */
export const PAYMENT_REQUEST_STATUSES = ['open', 'paid', 'expired'] as const;
/** One of {@link PAYMENT_REQUEST_STATUSES}. */
export type PaymentRequestStatus = (typeof PAYMENT_REQUEST_STATUSES)[number];

/** The status a payment request is created in (src/core/payment-links/payment-requests.ts). */
export const PAYMENT_REQUEST_INITIAL_STATUS: PaymentRequestStatus = 'open';
/**
 * Allowed next statuses of each payment request status: the match (src/core/funding/matching.ts)
 * and the expiry (src/core/payment-links/payment-requests.ts) are both guarded UPDATEs
 * `WHERE status = 'open'`, so exactly one of them wins.
 */
export const PAYMENT_REQUEST_TRANSITIONS: Readonly<Record<PaymentRequestStatus, readonly PaymentRequestStatus[]>> = {
  open: ['paid', 'expired'],
  paid: [],
  expired: [],
};
/**
 * Event written on entering a payment request status, in the transaction of the move: the match
 * (src/core/funding/matching.ts) and the expiry (src/core/payment-links/payment-requests.ts) take
 * their event type from here. `payment_request.expired` is our extension (the spec lists no expiry event).
 */
export const PAYMENT_REQUEST_EVENT_ON_ENTER = {
  paid: 'payment_request.paid',
  expired: 'payment_request.expired',
} as const satisfies Readonly<Partial<Record<PaymentRequestStatus, string>>>;

/** Payment link method types (spec "PaymentLink": bank_transfer, card, crypto). */
export const PAYMENT_METHOD_TYPES = ['bank_transfer', 'card', 'crypto'] as const;
/** One of {@link PAYMENT_METHOD_TYPES}. */
export type PaymentMethodType = (typeof PAYMENT_METHOD_TYPES)[number];

/** Normalises a payer's reference for comparison: trimmed, inner whitespace collapsed, upper case. */
export function normaliseReference(ref: string | null | undefined): string | null {
  if (ref === null || ref === undefined) return null;
  const v = ref.trim().replace(/\s+/g, ' ').toUpperCase();
  return v.length ? v : null;
}
