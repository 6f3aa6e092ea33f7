/**
 * The independent validator on the test bank's NACHA files (docs/rails.md "Test bank and
 * validator"): every file the test bank writes is checked like ours, by the project's checks
 * (tools/test-bank/ach-answers.ts checkedLikeOurs) and by the independent validator (achlens,
 * tools/nacha/validator.ts).
 *
 * achlens 0.1.7 validates origination files only: it does not know return and notification of
 * change entries, so on a return file it reports, for exactly those records, ED001 (transaction
 * codes 21/31 of an automated return or NOC), AD001 (addenda types 98/99), BH004 (the `COR` SEC
 * code of a batch of notifications of change) and, following from its ED001, BC005/FC006 (it counts their amounts nowhere, so the stated credit totals "do not match").
 * {@link validateTestBankNacha} drops those findings only, each only when the record it names is
 * such an entry or addenda, and only BC005/FC006 when our own parser has checked the same totals;
 * every other finding (ED012 trace order, hashes, counts, lengths, routing check digits) stands.
 */
import { parseNachaFile } from '../../src/rails/nacha';
import { type NachaValidation, validateNacha } from '../nacha/validator';

/** Transaction codes of automated returns and notifications of change (credits to checking/savings). */
const RETURN_CODES = new Set(['21', '26', '31', '36']);

/**
 * Runs the independent validator on `text` (a file the test bank wrote), dropping only the
 * findings that stem from achlens not knowing return and NOC entries (see the module comment).
 * Throws NachaParseError when our own checks refuse the file.
 */
export async function validateTestBankNacha(text: string): Promise<NachaValidation> {
  parseNachaFile(text);
  const lines = text.split(/\r?\n/);
  const record = (n: number) => lines[n - 1] ?? '';
  const hasReturns = lines.some((l) => l.startsWith('6') && RETURN_CODES.has(l.slice(1, 3)));
  const result = await validateNacha(text);
  const errors = result.errors.filter((e) => {
    const m = /^(\w+) line (\d+)/.exec(e);
    if (!m) return true;
    const [, rule, n] = m;
    const rec = record(Number(n));
    if (rule === 'ED001') return !(rec.startsWith('6') && RETURN_CODES.has(rec.slice(1, 3)));
    if (rule === 'AD001') return !(rec.startsWith('798') || rec.startsWith('799'));
    if (rule === 'BH004') return !(rec.startsWith('5') && rec.slice(50, 53) === 'COR');
    if (rule === 'BC005' || rule === 'FC006') return !hasReturns;
    return true;
  });
  return { valid: errors.length === 0, errors };
}
