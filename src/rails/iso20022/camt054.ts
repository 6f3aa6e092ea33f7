/** The bank's `camt.054.001.08` (docs/rails.md "ISO 20022 schemas"): booked debits settle, `RtrInf` credits return, other credits are deposits. */
import { decimalToMinor, minorToDecimal } from './amounts';
import { isoDateTime, parseDocument, Reader, writeDocument, type XmlTree } from './xml';

/** With the details of its first `NtryDtls/TxDtls`. */
export interface Camt054Entry {
  entryReference: string | null;
  accountServicerReference: string | null;
  creditDebit: 'CRDT' | 'DBIT';
  status: string;
  /** `Dt` or `DtTm`, as written. */
  bookingDate: string | null;
  /** Integer minor units as a decimal string. */
  amountMinor: string;
  currency: string;
  reversal: boolean;
  endToEndId: string | null;
  uetr: string | null;
  /** The message id of our `pain.001` it came in, if present. */
  originalMessageId: string | null;
  returnReasonCode: string | null;
  debtorName: string | null;
  debtorIban: string | null;
  creditorName: string | null;
  creditorIban: string | null;
  remittanceInformation: string | null;
  /** `<domain>/<family>/<sub-family>` (`PMNT/ICDT/ESCT`), or null. */
  bankTransactionCode: string | null;
  additionalEntryInfo: string | null;
}

export interface Camt054Notification {
  messageId: string;
  createdAt: string;
  accountIban: string | null;
  entries: Camt054Entry[];
}

function partyName(tx: Reader, role: 'Dbtr' | 'Cdtr'): string | null {
  return tx.text(`RltdPties/${role}/Pty/Nm`) ?? tx.text(`RltdPties/${role}/Nm`);
}

/** One `Ntry` (ReportEntry10, shared with camt.053); throws like {@link parseCamt054}. */
export function parseEntry(ntry: Reader): Camt054Entry {
  const cdi = ntry.needText('CdtDbtInd');
  if (cdi !== 'CRDT' && cdi !== 'DBIT') throw ntry.error(`${ntry.path}/CdtDbtInd is ${JSON.stringify(cdi)}, not CRDT or DBIT`);
  const amountText = ntry.needText('Amt');
  const currency = ntry.attr('Amt', 'Ccy');
  if (!currency) throw ntry.error(`${ntry.path}/Amt has no Ccy`);
  const amountMinor = decimalToMinor(amountText, 2);
  if (amountMinor === null) throw ntry.error(`${ntry.path}/Amt ${JSON.stringify(amountText)} is not an amount with at most 2 decimals`);
  const status = ntry.text('Sts/Cd') ?? ntry.text('Sts/Prtry');
  if (!status) throw ntry.error(`${ntry.path}/Sts/Cd is missing`);
  const tx = ntry.child('NtryDtls')?.all('TxDtls')[0] ?? null;
  const ustrd = tx?.child('RmtInf')?.node.Ustrd;
  const lines = (Array.isArray(ustrd) ? ustrd : ustrd === undefined ? [] : [ustrd]).filter((s): s is string => typeof s === 'string' && s !== '');
  return {
    entryReference: ntry.text('NtryRef'),
    accountServicerReference: ntry.text('AcctSvcrRef'),
    creditDebit: cdi,
    status,
    bookingDate: ntry.text('BookgDt/Dt') ?? ntry.text('BookgDt/DtTm'),
    amountMinor,
    currency,
    reversal: ntry.text('RvslInd') === 'true',
    endToEndId: tx?.text('Refs/EndToEndId') ?? null,
    uetr: tx?.text('Refs/UETR') ?? null,
    originalMessageId: tx?.text('Refs/MsgId') ?? null,
    returnReasonCode: tx?.text('RtrInf/Rsn/Cd') ?? null,
    debtorName: tx ? partyName(tx, 'Dbtr') : null,
    debtorIban: tx?.text('RltdPties/DbtrAcct/Id/IBAN') ?? null,
    creditorName: tx ? partyName(tx, 'Cdtr') : null,
    creditorIban: tx?.text('RltdPties/CdtrAcct/Id/IBAN') ?? null,
    remittanceInformation: lines.length ? lines.join(' ') : null,
    bankTransactionCode: ntry.text('BkTxCd/Domn/Cd') ? `${ntry.text('BkTxCd/Domn/Cd')}/${ntry.text('BkTxCd/Domn/Fmly/Cd') ?? ''}/${ntry.text('BkTxCd/Domn/Fmly/SubFmlyCd') ?? ''}` : null,
    additionalEntryInfo: ntry.text('AddtlNtryInf'),
  };
}

/** Throws `Iso20022ParseError` (size, DOCTYPE, malformed, namespace, missing header, bad entry, > 2 decimals); no XSD check. */
export function parseCamt054(xml: string): Camt054Notification {
  const root = new Reader(parseDocument(xml, 'camt.054.001.08', 'BkToCstmrDbtCdtNtfctn'), 'BkToCstmrDbtCdtNtfctn', 'camt.054.001.08');
  const hdr = root.need('GrpHdr');
  const notifications = root.all('Ntfctn');
  if (notifications.length === 0) throw root.error('BkToCstmrDbtCdtNtfctn/Ntfctn is missing');
  return {
    messageId: hdr.needText('MsgId'),
    createdAt: hdr.needText('CreDtTm'),
    accountIban: notifications[0].text('Acct/Id/IBAN'),
    entries: notifications.flatMap((n) => n.all('Ntry').map(parseEntry)),
  };
}

export interface Camt054EntryInput {
  entryReference?: string | null;
  accountServicerReference?: string | null;
  creditDebit: 'CRDT' | 'DBIT';
  status: 'BOOK' | 'PDNG';
  /** `YYYY-MM-DD` (written `Dt`) or a date-time (`DtTm`). */
  bookingDate?: string | null;
  /** Integer minor units as a decimal string. */
  amountMinor: string;
  currency: string;
  reversal?: boolean;
  /** Default `PMNT/ICDT/ESCT` (debit), `PMNT/ICDT/RRTN` (return), else `PMNT/RCDT/ESCT`. */
  bankTransactionCode?: { domain: string; family: string; subFamily: string };
  originalMessageId?: string | null;
  paymentInformationId?: string | null;
  endToEndId?: string | null;
  uetr?: string | null;
  returnReasonCode?: string | null;
  debtorName?: string | null;
  debtorIban?: string | null;
  creditorName?: string | null;
  creditorIban?: string | null;
  remittanceInformation?: string | null;
  /** At most 500 characters. */
  additionalEntryInfo?: string | null;
}

export interface Camt054Input {
  messageId: string;
  createdAt: Date;
  notificationId: string;
  accountIban: string;
  entries: Camt054EntryInput[];
}

function party(name: string | null | undefined): XmlTree | undefined {
  return name ? { Pty: { Nm: name } } : undefined;
}

function iban(value: string | null | undefined): XmlTree | undefined {
  return value ? { Id: { IBAN: value } } : undefined;
}

export function entryTree(e: Camt054EntryInput): XmlTree {
  const code =
    e.bankTransactionCode ??
    (e.creditDebit === 'DBIT'
      ? { domain: 'PMNT', family: 'ICDT', subFamily: 'ESCT' }
      : e.returnReasonCode
        ? { domain: 'PMNT', family: 'ICDT', subFamily: 'RRTN' }
        : { domain: 'PMNT', family: 'RCDT', subFamily: 'ESCT' });
  const hasParties = e.debtorName || e.debtorIban || e.creditorName || e.creditorIban;
  const hasRefs = e.originalMessageId || e.paymentInformationId || e.endToEndId || e.uetr;
  return {
    NtryRef: e.entryReference ?? undefined,
    Amt: { '@Ccy': e.currency, '#': minorToDecimal(e.amountMinor) },
    CdtDbtInd: e.creditDebit,
    RvslInd: e.reversal ? 'true' : undefined,
    Sts: { Cd: e.status },
    BookgDt: e.bookingDate ? (e.bookingDate.length === 10 ? { Dt: e.bookingDate } : { DtTm: e.bookingDate }) : undefined,
    AcctSvcrRef: e.accountServicerReference ?? undefined,
    BkTxCd: { Domn: { Cd: code.domain, Fmly: { Cd: code.family, SubFmlyCd: code.subFamily } } },
    NtryDtls: {
      TxDtls: {
        Refs: hasRefs
          ? {
              MsgId: e.originalMessageId ?? undefined,
              PmtInfId: e.paymentInformationId ?? undefined,
              EndToEndId: e.endToEndId ?? undefined,
              UETR: e.uetr ?? undefined,
            }
          : undefined,
        Amt: { '@Ccy': e.currency, '#': minorToDecimal(e.amountMinor) },
        CdtDbtInd: e.creditDebit,
        RltdPties: hasParties
          ? { Dbtr: party(e.debtorName), DbtrAcct: iban(e.debtorIban), Cdtr: party(e.creditorName), CdtrAcct: iban(e.creditorIban) }
          : undefined,
        RmtInf: e.remittanceInformation ? { Ustrd: e.remittanceInformation } : undefined,
        RtrInf: e.returnReasonCode ? { Rsn: { Cd: e.returnReasonCode } } : undefined,
      },
    },
    AddtlNtryInf: e.additionalEntryInfo ?? undefined,
  };
}

/** Throws an `Error` when an amount is not integer minor units; no XSD check. */
export function writeCamt054(input: Camt054Input): string {
  return writeDocument('camt.054.001.08', {
    BkToCstmrDbtCdtNtfctn: {
      GrpHdr: { MsgId: input.messageId, CreDtTm: isoDateTime(input.createdAt) },
      Ntfctn: {
        Id: input.notificationId,
        CreDtTm: isoDateTime(input.createdAt),
        Acct: { Id: { IBAN: input.accountIban } },
        Ntry: input.entries.length ? input.entries.map(entryTree) : undefined,
      },
    },
  });
}
