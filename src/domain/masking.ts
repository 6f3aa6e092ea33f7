/**
 * Masking of personal data for log lines (docs/security.md "Personal data in logs"); the logger
 * applies it to every line. Pure.
 */

const MASK = '••••';

/** `ana.lopez@example.com` -> `a••••@example.com` (the domain stays: it tells which provider). */
export function maskEmail(v: string): string {
  const at = v.lastIndexOf('@');
  if (at <= 0) return MASK;
  return `${v[0]}${MASK}${v.slice(at)}`;
}

/** `+5215512345678` -> `+52••••5678`: the country code's first digits and the last four. */
export function maskPhone(v: string): string {
  const digits = v.replace(/\D/g, '');
  if (digits.length <= 6) return MASK;
  return `${v.trim().startsWith('+') ? '+' : ''}${digits.slice(0, 2)}${MASK}${digits.slice(-4)}`;
}

/** An account number, CLABE, IBAN or similar: `••••1234` (country and check digits of an IBAN stay: `DE89••••3000`). */
export function maskAccount(v: string): string {
  const compact = v.replace(/\s/g, '');
  if (/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/i.test(compact)) return `${compact.slice(0, 4)}${MASK}${compact.slice(-4)}`;
  return compact.length <= 4 ? MASK : `${MASK}${compact.slice(-4)}`;
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const IBAN = /\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?\b/g;
const PHONE = /\+\d[\d\s().-]{6,18}\d/g;
/** A run of 8 to 34 digits standing alone: an account number, CLABE, card-like or phone number. */
const DIGIT_RUN = /\b\d{8,34}\b/g;

/** A copy of free text with every e-mail address, IBAN, international phone number and long digit run masked. */
export function maskPersonalText(text: string): string {
  return text
    .replace(EMAIL, maskEmail)
    .replace(IBAN, (m) => maskAccount(m))
    .replace(PHONE, maskPhone)
    .replace(DIGIT_RUN, (m) => maskAccount(m));
}

const ACCOUNT_KEYS = /^(account_?number|accountNumber|clabe|iban|pix_key|pixKey|cci|cbu|debtor_iban|creditor_iban|routing_and_account)$/i;
const PHONE_KEYS = /^(phone|phone_?number|phoneNumber|msisdn|mobile|to_phone)$/i;
const EMAIL_KEYS = /^(email|e_?mail_?address|emailAddress|to_email)$/i;

/** A copy of `value` for a log line: account, phone and e-mail fields masked by name at any depth, other strings by content. */
export function maskPersonalData(value: unknown, seen: WeakSet<object> = new WeakSet()): unknown {
  if (typeof value === 'string') return maskPersonalText(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  if (value instanceof Error) {
    const e = value as Error & { code?: unknown };
    return {
      type: e.name,
      message: maskPersonalText(e.message),
      ...(e.code !== undefined ? { code: e.code } : {}),
      ...(e.stack ? { stack: maskPersonalText(e.stack) } : {}),
    };
  }
  if (value instanceof Date) return value;
  if (Array.isArray(value)) return value.map((v) => maskPersonalData(v, seen));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string' && ACCOUNT_KEYS.test(k)) out[k] = maskAccount(v);
    else if (typeof v === 'string' && PHONE_KEYS.test(k)) out[k] = maskPhone(v);
    else if (typeof v === 'string' && EMAIL_KEYS.test(k)) out[k] = maskEmail(v);
    else out[k] = maskPersonalData(v, seen);
  }
  return out;
}
