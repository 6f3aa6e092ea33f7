/** OFAC's `Remarks` (continued in sdn_comments.csv): `;`-separated facts such as `DOB 10 Dec 1948` or `Passport 1084010 (Egypt)`. Pure. */
import { countryCode, isoDate } from '../normalize';
import type { EntryIdentifier } from '../entry';

/** Identifier labels of the remarks -> our identifier type. */
const ID_LABELS: readonly [RegExp, string][] = [
  [/^Passport$/i, 'passport'],
  [/^(National ID No\.|Cedula No\.|D\.N\.I\.|Identification Number|National Foreign ID Number|Personal ID Card)$/i, 'national_id'],
  [/^C\.U\.R\.P\.$/i, 'curp'],
  [/^R\.F\.C\.$/i, 'rfc'],
  [/^(Tax ID No\.|NIT #|RUC #|C\.U\.I\.T\.|Citizen's Card Number)$/i, 'tax_id'],
  [/^(Registration Number|Registration ID|Business Registration Document #|Business Registration Number|Company Number)$/i, 'registration'],
  [/^Legal Entity Number$/i, 'lei'],
  [/^SWIFT\/BIC$/i, 'bic'],
  [/^SSN$/i, 'ssn'],
  [/^(Vessel Registration Identification IMO|IMO)$/i, 'imo'],
];

/** What a remarks text says about an entry. */
export interface OfacRemarks {
  datesOfBirth: string[];
  countries: string[];
  identifiers: EntryIdentifier[];
}

/** Reads the facts of one remarks text (unknown facts are ignored). */
export function parseOfacRemarks(remarks: string | null): OfacRemarks {
  const out: OfacRemarks = { datesOfBirth: [], countries: [], identifiers: [] };
  if (!remarks) return out;
  for (const raw of remarks.split(';')) {
    const part = raw.trim().replace(/\.$/, '').replace(/^alt\.\s+/i, '');
    let m = /^DOB\s+(.+)$/i.exec(part);
    if (m) {
      for (const d of m[1]!.replace(/^circa\s+/i, '').split(/\s+to\s+/i)) {
        const iso = isoDate(d.replace(/^circa\s+/i, ''));
        if (iso) out.datesOfBirth.push(iso);
      }
      continue;
    }
    m = /^(?:nationality|citizen)\s+(.+)$/i.exec(part);
    if (m) {
      const c = countryCode(m[1]);
      if (c) out.countries.push(c);
      continue;
    }
    m = /^POB\s+(.+)$/i.exec(part);
    if (m) {
      const c = countryCode(m[1]!.split(',').at(-1));
      if (c) out.countries.push(c);
      continue;
    }
    m = /^(.+?)\s+([A-Z0-9][A-Z0-9./-]*\d[A-Z0-9./-]*)(?:\s+\((.+)\))?(?:\s+.*)?$/i.exec(part);
    if (m) {
      const type = ID_LABELS.find(([re]) => re.test(m![1]!.trim()))?.[1];
      if (type) out.identifiers.push({ type, value: m[2]! });
    }
  }
  return out;
}
