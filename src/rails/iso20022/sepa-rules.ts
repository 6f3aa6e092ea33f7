/** EPC SEPA rules the ISO XSD cannot express (docs/rails.md "ISO 20022 schemas", Validation): EUR, 2 decimals, ranges, sums. */
import type { SaxesTag } from 'saxes';
import { lazyPackage } from '../../lazy-package';
import { decimalToMinor, sumMinor } from './amounts';

const saxes = lazyPackage<typeof import('saxes')>('saxes');

const MAX_SEPA_AMOUNT_MINOR = 99999999999n;

const local = (name: string) => name.slice(name.indexOf(':') + 1);

/** Violations naming the element (empty when none); streamed. Never throws: malformed XML is the one violation. */
export function sepaPain001RuleErrors(xml: string): string[] {
  const errors: string[] = [];
  const stack: string[] = [];
  let text = '';
  let currency: string | null = null;
  const group = { nb: null as string | null, ctrlSum: null as string | null };
  const payments: Array<{ nb: string | null; ctrlSum: string | null; amounts: string[] }> = [];
  let transfer = -1;
  let broken: string | null = null;
  const parser = new (saxes().SaxesParser)({ position: false });
  parser.on('error', (err) => {
    broken ??= err.message.split('\n')[0]!;
  });
  parser.on('opentag', (tag: SaxesTag) => {
    const name = local(tag.name);
    stack.push(name);
    text = '';
    const depth = stack.length;
    if (depth === 3 && name === 'PmtInf') {
      payments.push({ nb: null, ctrlSum: null, amounts: [] });
      transfer = -1;
    } else if (depth === 4 && name === 'CdtTrfTxInf' && stack[2] === 'PmtInf') transfer++;
    else if (depth === 6 && name === 'InstdAmt') currency = (tag.attributes as Record<string, string>).Ccy ?? '';
  });
  parser.on('text', (t) => {
    text += t;
  });
  parser.on('closetag', () => {
    const depth = stack.length;
    const name = stack[depth - 1];
    const value = text.trim();
    text = '';
    if (depth === 4 && stack[2] === 'GrpHdr') {
      if (name === 'NbOfTxs') group.nb = value;
      if (name === 'CtrlSum') group.ctrlSum = value;
    } else if (depth === 4 && stack[2] === 'PmtInf') {
      const p = payments[payments.length - 1]!;
      if (name === 'NbOfTxs') p.nb = value;
      if (name === 'CtrlSum') p.ctrlSum = value;
    } else if (depth === 6 && name === 'InstdAmt' && stack[3] === 'CdtTrfTxInf' && stack[4] === 'Amt') {
      const i = payments.length - 1;
      const where = `PmtInf[${i}]/CdtTrfTxInf[${transfer}]/Amt/InstdAmt`;
      const minor = decimalToMinor(value, 2);
      if (currency !== 'EUR') errors.push(`SEPA rule: ${where} is in ${currency}, not EUR`);
      if (minor === null) errors.push(`SEPA rule: ${where} ${JSON.stringify(value)} is not an amount with at most 2 decimals`);
      else {
        if (BigInt(minor) < 1n || BigInt(minor) > MAX_SEPA_AMOUNT_MINOR) errors.push(`SEPA rule: ${where} is outside 0.01 to 999999999.99`);
        payments[i]!.amounts.push(minor);
      }
    }
    stack.pop();
  });
  parser.write(xml);
  parser.close();
  if (broken) return [`SEPA rule: pain.001.001.09: not well-formed XML (${broken})`];
  const checkSum = (where: string, nb: string | null, ctrlSum: string | null, amounts: string[]) => {
    if (nb !== null && nb !== String(amounts.length)) errors.push(`SEPA rule: ${where}/NbOfTxs is ${nb}, the file has ${amounts.length} transactions`);
    if (ctrlSum === null) return;
    const minor = decimalToMinor(ctrlSum, 2);
    if (minor === null) errors.push(`SEPA rule: ${where}/CtrlSum ${ctrlSum} has more than 2 decimals`);
    else if (minor !== sumMinor(amounts)) errors.push(`SEPA rule: ${where}/CtrlSum ${ctrlSum} is not the sum of the amounts`);
  };
  payments.forEach((p, i) => checkSum(`PmtInf[${i}]`, p.nb, p.ctrlSum, p.amounts));
  checkSum('GrpHdr', group.nb, group.ctrlSum, payments.flatMap((p) => p.amounts));
  return errors;
}
