/**
 * The `pain.001.001.09` customer credit transfer initiation the service uploads to its bank
 * (docs/rails.md "ISO 20022 schemas"): one payment information block (SEPA service level, charges
 * `SLEV`, batch booking) holding one transaction per payout. Amounts come from integer minor units
 * by string and `bigint` arithmetic, never floating point. Names and remittance text pass through
 * {@link toSepaText}. The writer does not validate against the XSD: `validateIso20022` does that
 * separately, so a test can build a bad file.
 */
import { decimalToMinor, minorToDecimal, sumMinor } from './amounts';
import { isSepaIdentifier, toSepaText } from './sepa-text';
import { isoDateTime, parseDocument, Reader, writeDocument, type XmlTree } from './xml';

/** Longest name carried: 70 characters (docs/rails.md "ISO 20022 schemas", Text). */
export const SEPA_NAME_MAX = 70;
/** Longest unstructured remittance information (one `Ustrd`, 140 characters). */
export const SEPA_REMITTANCE_MAX = 140;

/** One credit transfer (one payout attempt) in a `pain.001`. */
export interface Pain001Transfer {
  /** Our end-to-end id: at most 35 characters of the SEPA set. */
  endToEndId: string;
  /** Unique end-to-end transaction reference: a UUID v4, lowercase. */
  uetr: string;
  /** Integer minor units as a decimal string, e.g. `"12345"` = 123.45 EUR. */
  amountMinor: string;
  currency: 'EUR';
  /** The recipient: name (converted to the SEPA set, at most 70), IBAN, optional BIC. */
  creditor: { name: string; iban: string; bic?: string | null };
  /** Unstructured remittance text, at most 140 characters after conversion. */
  remittanceInformation?: string | null;
}

/** One `pain.001` file: header, the debtor (our settlement account) and its transfers. */
export interface Pain001Input {
  /** The file's message id (at most 35); also its name on the bank's server. */
  messageId: string;
  createdAt: Date;
  /** Payment information id (at most 35). */
  paymentInformationId: string;
  /** Requested execution date, `YYYY-MM-DD`. */
  requestedExecutionDate: string;
  /** The platform's settlement account (configuration). */
  debtor: { name: string; iban: string; bic: string };
  /** At least one transfer. */
  transfers: Pain001Transfer[];
  /**
   * `BtchBookg`; default `true`. With `true` a bank may book the whole block as one debit entry
   * (one `camt.054` `Ntry` holding every transaction in its `TxDtls`); with `false` it books one
   * entry per transaction (docs/rails.md "ISO 20022 schemas", Batch booking).
   */
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

/**
 * Writes the `pain.001.001.09` XML text (UTF-8, namespace
 * `urn:iso:std:iso:20022:tech:xsd:pain.001.001.09`). `NbOfTxs` and `CtrlSum` are computed from the
 * transfers' minor units. Throws an `Error` naming the field when the input cannot be carried: no
 * transfer, a currency other than EUR, an id outside the SEPA identifier rules, a UETR that is not a
 * lowercase UUID v4, an amount that is not positive integer minor units, a date that is not
 * `YYYY-MM-DD`, or a name or remittance text that {@link toSepaText} refuses (the caller refuses such
 * input earlier, when the payout is created).
 */
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

/** A `pain.001.001.09` as read back (by the test bank, or to inspect a file the service wrote). */
export interface Pain001File {
  messageId: string;
  /** `GrpHdr/CreDtTm` as written. */
  createdAt: string;
  /** `GrpHdr/NbOfTxs` as written. */
  numberOfTransactions: string;
  /** `GrpHdr/CtrlSum` as written (decimal text), or `null`. */
  controlSum: string | null;
  payments: Array<{
    paymentInformationId: string;
    /** `PmtInf/NbOfTxs` and `PmtInf/CtrlSum` as written, or `null`. */
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

/**
 * Reads a `pain.001.001.09` file. Throws `Iso20022ParseError` (like the other parsers) for input
 * over `MAX_ISO20022_BYTES`, a DOCTYPE or ENTITY declaration, malformed XML, another namespace, a
 * missing `MsgId`, `CreDtTm`, `NbOfTxs`, `PmtInfId`, `EndToEndId` or `InstdAmt`, or an amount of more than 2
 * decimals. Does not validate against the XSD.
 */
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
