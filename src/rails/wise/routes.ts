/**
 * The partner's routes (docs/rails.md "Payout partner"): per catalog channel, the partner's account
 * requirement `type` and how our recipient fields map to its account `details`. A channel without a
 * route stays `paused` in live. Pure.
 */

export interface WiseRoute {
  channel: string;
  rail: string;
  currency: string;
  /** E.g. `mexican`. */
  type: string;
  /** Partner detail key <- our recipient field, with the partner's pattern. */
  fields: ReadonlyArray<{ key: string; from: string; pattern: RegExp; description: string }>;
  arrival: string;
}

export const WISE_ROUTES: readonly WiseRoute[] = [
  { channel: 'spei_mxn', rail: 'spei', currency: 'MXN', type: 'mexican', fields: [{ key: 'clabe', from: 'clabe', pattern: /^[0-9]{18}$/, description: '18-digit CLABE' }], arrival: 'minutes (SPEI)' },
  {
    channel: 'pix_brl',
    rail: 'pix',
    currency: 'BRL',
    type: 'pix',
    fields: [
      { key: 'pixKey', from: 'pix_key', pattern: /^.{1,77}$/, description: 'Pix key (CPF, CNPJ, e-mail, phone or random key)' },
      { key: 'cpf', from: 'tax_id', pattern: /^[0-9]{11}([0-9]{3})?$/, description: 'CPF or CNPJ, digits only' },
    ],
    arrival: 'seconds to minutes (Pix)',
  },
  {
    channel: 'faster_gbp',
    rail: 'faster_payments',
    currency: 'GBP',
    type: 'sort_code',
    fields: [
      { key: 'sortCode', from: 'sort_code', pattern: /^[0-9]{6}$/, description: 'six-digit sort code' },
      { key: 'accountNumber', from: 'account_number', pattern: /^[0-9]{8}$/, description: 'eight-digit account number' },
    ],
    arrival: 'minutes (Faster Payments)',
  },
  {
    channel: 'imps_inr',
    rail: 'imps',
    currency: 'INR',
    type: 'indian',
    fields: [
      { key: 'ifscCode', from: 'ifsc', pattern: /^[A-Z]{4}0[A-Z0-9]{6}$/, description: 'IFSC' },
      { key: 'accountNumber', from: 'account_number', pattern: /^[0-9]{9,18}$/, description: 'account number' },
    ],
    arrival: 'minutes to hours (IMPS)',
  },
  {
    channel: 'bank_aud',
    rail: 'npp',
    currency: 'AUD',
    type: 'australian',
    fields: [
      { key: 'bsbCode', from: 'bsb', pattern: /^[0-9]{6}$/, description: 'BSB' },
      { key: 'accountNumber', from: 'account_number', pattern: /^[0-9]{6,10}$/, description: 'account number' },
    ],
    arrival: 'minutes to 1 business day (NPP)',
  },
];

export function wiseRouteOf(channel: string): WiseRoute | undefined {
  return WISE_ROUTES.find((r) => r.channel === channel);
}

export function wiseRouteFor(rail: string, currency: string): WiseRoute | undefined {
  return WISE_ROUTES.find((r) => r.rail === rail && r.currency === currency);
}

export const WISE_MAX_HOLDER_NAME = 140;

/** The partner account for a recipient, or the first recipient field that cannot meet the partner's requirements. */
export function wiseAccountOf(route: WiseRoute, recipient: Record<string, unknown>): { account: { accountHolderName: string; legalType: 'PRIVATE' | 'BUSINESS'; type: string; currency: string; details: Record<string, string> } } | { field: string; message: string } {
  const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
  const name = str(recipient.holder_name ?? recipient.name).replace(/\s+/g, ' ');
  const business = recipient.recipient_kind === 'business';
  if (name.length < 2 || name.length > WISE_MAX_HOLDER_NAME) return { field: 'holder_name', message: `holder_name must be 2 to ${WISE_MAX_HOLDER_NAME} characters for the payout partner` };
  if (!business && !/\S+\s+\S+/.test(name)) return { field: 'holder_name', message: 'holder_name must give a first and a last name: the payout partner pays individuals by full name' };
  const details: Record<string, string> = {};
  for (const f of route.fields) {
    const v = str(recipient[f.from]).replace(/\s+/g, '');
    if (!f.pattern.test(v)) return { field: f.from, message: `${f.from} must be a ${f.description} for the payout partner (${route.type} account)` };
    details[f.key] = v;
  }
  return { account: { accountHolderName: name, legalType: business ? 'BUSINESS' : 'PRIVATE', type: route.type, currency: route.currency, details } };
}
