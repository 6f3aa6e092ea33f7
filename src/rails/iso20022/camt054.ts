/**
 * The bank's `camt.054.001.08` debit/credit notification (docs/rails.md "ISO 20022 schemas"):
 * booked debits confirm a payout's settlement, credit entries with return information (`RtrInf`)
 * return it, and other credit entries are incoming transfers (live deposits). {@link parseCamt054}
 * reads it (the service's inbound side); {@link writeCamt054} writes it (the test bank). Amounts are
 * converted between the file's decimal text and integer minor units by string operations.
 */
import { decimalToMinor, minorToDecimal } from './amounts';
import { isoDateTime, parseDocument, Reader, writeDocument, type XmlTree } from './xml';

/** One entry (`Ntry`) of a notification, with the details of its first transaction (`NtryDtls/TxDtls`). */
export interface Camt054Entry {
  entryReference: string | null;
  accountServicerReference: string | null;
  creditDebit: 'CRDT' | 'DBIT';
  /** `Sts/Cd`: `BOOK`, `PDNG`, ... */
  status: string;
  /** `BookgDt/Dt` (ISO date) or `BookgDt/DtTm` (ISO date-time), as written. */
  bookingDate: string | null;
  /** Integer minor units as a decimal string (`"12345"` for `123.45`). */
  amountMinor: string;
  currency: string;
  /** `RvslInd` is `true`. */
  reversal: boolean;
  endToEndId: string | null;
  uetr: string | null;
  /** `Refs/MsgId`: the message id of the file the transaction came in (our `pain.001`), if present. */
  originalMessageId: string | null;
  /** `RtrInf/Rsn/Cd`, e.g. `AC04`. */
  returnReasonCode: string | null;
  debtorName: string | null;
  debtorIban: string | null;
  creditorName: string | null;
  creditorIban: string | null;
  /** The `RmtInf/Ustrd` texts joined by a space. */
  remittanceInformation: string | null;
  /** `BkTxCd/Domn` as `<domain>/<family>/<sub-family>` (`PMNT/ICDT/ESCT`, `ACMT/MDOP/CHRG`), or null. */
  bankTransactionCode: string | null;
  /** `AddtlNtryInf`, or null. */
  additionalEntryInfo: string | null;
}

/** A parsed `camt.054.001.08` (entries of every `Ntfctn`, in file order). */
export interface Camt054Notification {
  messageId: string;
  /** `GrpHdr/CreDtTm` as written. */
  createdAt: string;
  /** The IBAN of the first notification's account. */
  accountIban: string | null;
  entries: Camt054Entry[];
}

function partyName(tx: Reader, role: 'Dbtr' | 'Cdtr'): string | null {
  return tx.text(`RltdPties/${role}/Pty/Nm`) ?? tx.text(`RltdPties/${role}/Nm`);
}

/** Reads one `Ntry` (ReportEntry10, shared by camt.053.001.08 and camt.054.001.08); throws `Iso20022ParseError` like {@link parseCamt054}. */
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

/**
 * Parses a `camt.054.001.08` file. Throws `Iso20022ParseError` for input over
 * `MAX_ISO20022_BYTES`, a DOCTYPE or ENTITY declaration, malformed XML, another namespace, a missing
 * `GrpHdr/MsgId` or `GrpHdr/CreDtTm`, no `Ntfctn`, and an entry without a valid `CdtDbtInd`, `Sts`,
 * `Amt` with `Ccy`, or with an amount of more than 2 decimals. Does not validate against the XSD.
 */
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

/** One entry for {@link writeCamt054}; unset optional fields are left out of the file. */
export interface Camt054EntryInput {
  entryReference?: string | null;
  accountServicerReference?: string | null;
  creditDebit: 'CRDT' | 'DBIT';
  status: 'BOOK' | 'PDNG';
  /** `YYYY-MM-DD` (written as `Dt`) or an ISO date-time (written as `DtTm`). */
  bookingDate?: string | null;
  /** Integer minor units as a decimal string. */
  amountMinor: string;
  currency: string;
  reversal?: boolean;
  /** Bank transaction code; default: `PMNT/ICDT/ESCT` for a debit, `PMNT/ICDT/RRTN` for a credit with a return reason, else `PMNT/RCDT/ESCT`. */
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
  /** `AddtlNtryInf`: the bank's free text about the entry (at most 500 characters), e.g. what a fee is for. */
  additionalEntryInfo?: string | null;
}

/** What {@link writeCamt054} writes: one notification for one account. */
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

/** The `Ntry` tree (ReportEntry10, shared by camt.053.001.08 and camt.054.001.08) of one entry. */
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

/**
 * Writes a `camt.054.001.08` notification (UTF-8 XML text, namespace
 * `urn:iso:std:iso:20022:tech:xsd:camt.054.001.08`) with one `Ntfctn` for `accountIban` and one
 * `Ntry` (with one `TxDtls`) per entry. Throws an `Error` when an amount is not integer minor units.
 * Does not validate against the XSD.
 */
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
