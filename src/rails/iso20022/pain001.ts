/** The `pain.001.001.09` we upload (docs/rails.md "ISO 20022 schemas"); amounts from minor units by `bigint`, no XSD check here. */
import { decimalToMinor, minorToDecimal, sumMinor } from './amounts';
import { isSepaIdentifier, toSepaText } from './sepa-text';
import { isoDateTime, parseDocument, Reader, writeDocument, type XmlTree } from './xml';

export const SEPA_NAME_MAX = 70;
export const SEPA_REMITTANCE_MAX = 140;

/** One credit transfer (one payout attempt). */
export interface Pain001Transfer {
  /** At most 35 characters of the SEPA set. */
  endToEndId: string;
  /** A lowercase UUID v4. */
  uetr: string;
  /** Integer minor units as a decimal string (`"12345"` = 123.45 EUR). */
  amountMinor: string;
  currency: 'EUR';
  /** Name at most 70 after {@link toSepaText}. */
  creditor: { name: string; iban: string; bic?: string | null };
  /** At most 140 characters after conversion. */
  remittanceInformation?: string | null;
}

export interface Pain001Input {
  /** At most 35; also the file's name on the bank's server. */
  messageId: string;
  createdAt: Date;
  paymentInformationId: string;
  /** `YYYY-MM-DD`. */
  requestedExecutionDate: string;
  debtor: { name: string; iban: string; bic: string };
  transfers: Pain001Transfer[];
  /** `BtchBookg`, default `true`; `false`: one booking (camt.054 entry) per transaction. */
  batchBooking?: boolean;
}

const UETR = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function sepa(text: string, max: number, what: string): string {
  const r = toSepaText(text, max);
  if (!r.ok) throw new Error(`pain.001: ${what} ${r.reason}`);
  return r.value;
}

function identifier(id: string, what: string): string {
  if (!isSepaIdentifier(id)) throw new Error(`pain.001: ${what} ${JSON.stringify(id)} is not 1 to 35 characters of the SEPA set`);
  return id;
}

function account(iban: string): string {
  return iban.replace(/\s+/g, '').toUpperCase();
}

/** Writes the XML; throws an `Error` naming the field when the input cannot be carried (not EUR, bad id, UETR, amount, date or text). */
export function writePain001(input: Pain001Input): string {
  if (input.transfers.length === 0) throw new Error('pain.001: at least one transfer is required');
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(input.requestedExecutionDate)) {
    throw new Error(`pain.001: requestedExecutionDate ${JSON.stringify(input.requestedExecutionDate)} is not YYYY-MM-DD`);
  }
  const amounts = input.transfers.map((t, i) => {
    if (t.currency !== 'EUR') throw new Error(`pain.001: transfers[${i}].currency must be EUR`);
    if (!/^[1-9][0-9]*$/.test(t.amountMinor)) throw new Error(`pain.001: transfers[${i}].amountMinor ${JSON.stringify(t.amountMinor)} is not positive integer minor units`);
    return t.amountMinor;
  });
  const nbOfTxs = String(input.transfers.length);
  const ctrlSum = minorToDecimal(sumMinor(amounts));
  const debtorName = sepa(input.debtor.name, SEPA_NAME_MAX, 'debtor.name');

  const transactions: XmlTree[] = input.transfers.map((t, i) => {
    if (!UETR.test(t.uetr)) throw new Error(`pain.001: transfers[${i}].uetr ${JSON.stringify(t.uetr)} is not a lowercase UUID v4`);
    const remittance = t.remittanceInformation ? sepa(t.remittanceInformation, SEPA_REMITTANCE_MAX, `transfers[${i}].remittanceInformation`) : undefined;
    return {
      PmtId: { EndToEndId: identifier(t.endToEndId, `transfers[${i}].endToEndId`), UETR: t.uetr },
      Amt: { InstdAmt: { '@Ccy': 'EUR', '#': minorToDecimal(t.amountMinor) } },
      CdtrAgt: t.creditor.bic ? { FinInstnId: { BICFI: t.creditor.bic.toUpperCase() } } : undefined,
      Cdtr: { Nm: sepa(t.creditor.name, SEPA_NAME_MAX, `transfers[${i}].creditor.name`) },
      CdtrAcct: { Id: { IBAN: account(t.creditor.iban) } },
      RmtInf: remittance ? { Ustrd: remittance } : undefined,
    };
  });

  return writeDocument('pain.001.001.09', {
    CstmrCdtTrfInitn: {
      GrpHdr: {
        MsgId: identifier(input.messageId, 'messageId'),
        CreDtTm: isoDateTime(input.createdAt),
        NbOfTxs: nbOfTxs,
        CtrlSum: ctrlSum,
        InitgPty: { Nm: debtorName },
      },
      PmtInf: {
        PmtInfId: identifier(input.paymentInformationId, 'paymentInformationId'),
        PmtMtd: 'TRF',
        BtchBookg: input.batchBooking === false ? 'false' : 'true',
        NbOfTxs: nbOfTxs,
        CtrlSum: ctrlSum,
        PmtTpInf: { SvcLvl: { Cd: 'SEPA' } },
        ReqdExctnDt: { Dt: input.requestedExecutionDate },
        Dbtr: { Nm: debtorName },
        DbtrAcct: { Id: { IBAN: account(input.debtor.iban) } },
        DbtrAgt: { FinInstnId: { BICFI: input.debtor.bic.toUpperCase() } },
        ChrgBr: 'SLEV',
        CdtTrfTxInf: transactions,
      },
    },
  });
}

/** A `pain.001.001.09` as read back (test bank, inspection). */
export interface Pain001File {
  messageId: string;
  createdAt: string;
  numberOfTransactions: string;
  /** Decimal text, or `null`. */
  controlSum: string | null;
  payments: Array<{
    paymentInformationId: string;
    numberOfTransactions: string | null;
    controlSum: string | null;
    requestedExecutionDate: string | null;
    debtor: { name: string | null; iban: string | null; bic: string | null };
    transfers: Array<{
      endToEndId: string;
      uetr: string | null;
      /** Integer minor units as a decimal string. */
      amountMinor: string;
      currency: string;
      creditor: { name: string | null; iban: string | null; bic: string | null };
      remittanceInformation: string | null;
    }>;
  }>;
}

/** Throws `Iso20022ParseError` (size, DOCTYPE, malformed, namespace, required element, > 2 decimals); no XSD check. */
export function parsePain001(xml: string): Pain001File {
  const root = new Reader(parseDocument(xml, 'pain.001.001.09', 'CstmrCdtTrfInitn'), 'CstmrCdtTrfInitn', 'pain.001.001.09');
  const hdr = root.need('GrpHdr');
  return {
    messageId: hdr.needText('MsgId'),
    createdAt: hdr.needText('CreDtTm'),
    numberOfTransactions: hdr.needText('NbOfTxs'),
    controlSum: hdr.text('CtrlSum'),
    payments: root.all('PmtInf').map((pmt) => ({
      paymentInformationId: pmt.needText('PmtInfId'),
      numberOfTransactions: pmt.text('NbOfTxs'),
      controlSum: pmt.text('CtrlSum'),
      requestedExecutionDate: pmt.text('ReqdExctnDt/Dt') ?? pmt.text('ReqdExctnDt/DtTm'),
      debtor: { name: pmt.text('Dbtr/Nm'), iban: pmt.text('DbtrAcct/Id/IBAN'), bic: pmt.text('DbtrAgt/FinInstnId/BICFI') },
      transfers: pmt.all('CdtTrfTxInf').map((tx) => {
        const amount = tx.needText('Amt/InstdAmt');
        const amountMinor = decimalToMinor(amount, 2);
        if (amountMinor === null) throw tx.error(`${tx.path}/Amt/InstdAmt ${JSON.stringify(amount)} is not an amount with at most 2 decimals`);
        const ustrd = tx.child('RmtInf')?.node.Ustrd;
        const lines = (Array.isArray(ustrd) ? ustrd : ustrd === undefined ? [] : [ustrd]).filter((s): s is string => typeof s === 'string');
        return {
          endToEndId: tx.needText('PmtId/EndToEndId'),
          uetr: tx.text('PmtId/UETR'),
          amountMinor,
          currency: tx.attr('Amt/InstdAmt', 'Ccy') ?? '',
          creditor: { name: tx.text('Cdtr/Nm'), iban: tx.text('CdtrAcct/Id/IBAN'), bic: tx.text('CdtrAgt/FinInstnId/BICFI') },
          remittanceInformation: lines.length ? lines.join(' ') : null,
        };
      }),
    })),
  };
}
