/** Sandbox FX: fixed mid-market rates from USDC (no BGN: Bulgaria pays out on sepa_eur). Pure data, importable by workflows. */

/** 1 USDC buys <rate> units of the currency (ISO 4217), a decimal string of at most 6 decimals (spec "Quote"). */
export const SANDBOX_MID_RATES: Readonly<Record<string, string>> = Object.freeze({
  USDC: '1',
  USD: '1',
  EUR: '0.92',
  GBP: '0.79',
  CHF: '0.81',
  SEK: '9.6',
  NOK: '10.2',
  DKK: '6.86',
  PLN: '3.68',
  CZK: '21.1',
  HUF: '332.5',
  RON: '4.4',
  TRY: '41.8',
  ILS: '3.3',
  AED: '3.6725',
  SAR: '3.75',
  EGP: '47.6',
  MAD: '9.1',
  NGN: '1530',
  GHS: '11.9',
  KES: '129.2',
  ZAR: '17.6',
  CAD: '1.38',
  MXN: '17.05',
  BRL: '5.4',
  COP: '3900',
  CLP: '940',
  PEN: '3.45',
  ARS: '1450',
  UYU: '40.1',
  VES: '36.5',
  HKD: '7.8',
  JPY: '152.3',
  KRW: '1385',
  CNY: '7.12',
  TWD: '30.5',
  SGD: '1.29',
  MYR: '4.22',
  THB: '32.4',
  IDR: '16550',
  VND: '26200',
  PHP: '58.1',
  INR: '88.2',
  PKR: '281.5',
  BDT: '122',
  AUD: '1.53',
  NZD: '1.71',
});

/** The sandbox rate USDC -> `currency`. Throws Error for an unknown currency (a catalog mismatch). */
export function midRate(currency: string): string {
  const rate = Object.hasOwn(SANDBOX_MID_RATES, currency) ? SANDBOX_MID_RATES[currency] : undefined;
  if (rate === undefined) throw new Error(`No sandbox FX rate for currency '${currency}'`);
  return rate;
}
