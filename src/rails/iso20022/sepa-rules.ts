/**
 * The EPC's SEPA usage rules for a `pain.001.001.09` that the official ISO 20022 XSD cannot express
 * (docs/rails.md "ISO 20022 schemas", Validation). The ISO XSD allows amounts
 * with up to 5 decimals and any control sum; the EPC's SCT implementation guidelines restrict them.
 * No pinned package ships the EPC's own restricted XSD, so these few rules are checked here, on a
 * file that already validates against the official XSD:
 *
 * - every `InstdAmt` is in `EUR`, has at most 2 decimals, and is between 0.01 and 999999999.99;
 * - `CtrlSum` (group and payment information) has at most 2 decimals and equals the sum of the
 *   amounts it covers; `NbOfTxs` equals the number of transactions it covers.
 */
import { decimalToMinor, sumMinor } from './amounts';
import { parsePain001 } from './pain001';
import { Iso20022ParseError } from './xml';

const MAX_SEPA_AMOUNT_MINOR = 99999999999n;

/**
 * The SEPA rule violations of a `pain.001.001.09` (empty when none), each naming the element.
 * Never throws: a file that cannot be read answers its parse error as the one violation.
 */
export function sepaPain001RuleErrors(xml: string): string[] {
  const errors: string[] = [];
  let file;
  try {
    file = parsePain001(xml);
  } catch (err) {
    if (err instanceof Iso20022ParseError) return [`SEPA rule: ${err.message}`];
    throw err;
  }
  const checkSum = (where: string, nb: string | null, ctrlSum: string | null, amounts: string[]) => {
    if (nb !== null && nb !== String(amounts.length)) errors.push(`SEPA rule: ${where}/NbOfTxs is ${nb}, the file has ${amounts.length} transactions`);
    if (ctrlSum === null) return;
    const minor = decimalToMinor(ctrlSum, 2);
    if (minor === null) errors.push(`SEPA rule: ${where}/CtrlSum ${ctrlSum} has more than 2 decimals`);
    else if (minor !== sumMinor(amounts)) errors.push(`SEPA rule: ${where}/CtrlSum ${ctrlSum} is not the sum of the amounts`);
  };
  const all: string[] = [];
  file.payments.forEach((p, i) => {
    const where = `PmtInf[${i}]`;
    p.transfers.forEach((t, j) => {
      if (t.currency !== 'EUR') errors.push(`SEPA rule: ${where}/CdtTrfTxInf[${j}]/Amt/InstdAmt is in ${t.currency}, not EUR`);
      const minor = BigInt(t.amountMinor);
      if (minor < 1n || minor > MAX_SEPA_AMOUNT_MINOR) errors.push(`SEPA rule: ${where}/CdtTrfTxInf[${j}]/Amt/InstdAmt is outside 0.01 to 999999999.99`);
    });
    const amounts = p.transfers.map((t) => t.amountMinor);
    all.push(...amounts);
    checkSum(where, p.numberOfTransactions, p.controlSum, amounts);
  });
  checkSum('GrpHdr', file.numberOfTransactions, file.controlSum, all);
  return errors;
}
