/**
 * The bank's `pain.002.001.10` customer payment status report (docs/rails.md "ISO 20022 schemas"):
 * group, payment information and transaction statuses (`ACCP`, `ACSC`, `RJCT`, ...) with their
 * `StsRsnInf` reason codes (`AC01`, `AM04`, `FF01`, ...), addressed by the original message id,
 * payment information id, end-to-end id and UETR. {@link parsePain002} reads it (the service's
 * inbound side); {@link writePain002} writes it (the test bank).
 */
import { isoDateTime, parseDocument, Reader, writeDocument, type XmlTree } from './xml';

/** One transaction's status in a {@link Pain002Report}. */
export interface Pain002Transaction {
  originalEndToEndId: string | null;
  uetr: string | null;
  /** `TxSts`; when the file gives none, the payment's status, else the group's. */
  status: string;
  /** The first `StsRsnInf/Rsn/Cd` (or `Prtry`), e.g. `AC01`. */
  reasonCode: string | null;
  /** The `StsRsnInf/AddtlInf` texts joined by a space. */
  additionalInfo: string | null;
}

/** A parsed `pain.002.001.10`. Codes are the file's own (ISO external code sets); dates are the file's text. */
export interface Pain002Report {
  messageId: string;
  /** `GrpHdr/CreDtTm` as written (ISO 8601 date-time). */
  createdAt: string;
  /** The `pain.001` message id this report answers (`OrgnlMsgId`). */
  originalMessageId: string;
  groupStatus: string | null;
  groupReasonCode: string | null;
  payments: Array<{
    originalPaymentInformationId: string | null;
    status: string | null;
    reasonCode: string | null;
    transactions: Pain002Transaction[];
  }>;
}

function reason(node: Reader): { code: string | null; info: string | null } {
  const first = node.all('StsRsnInf')[0];
  if (!first) return { code: null, info: null };
  const code = first.text('Rsn/Cd') ?? first.text('Rsn/Prtry');
  const infos = node.all('StsRsnInf').flatMap((r) => {
    const v = r.node.AddtlInf;
    return (Array.isArray(v) ? v : v === undefined ? [] : [v]).map((x) => (typeof x === 'string' ? x : ''));
  });
  const info = infos.filter((s) => s !== '').join(' ');
  return { code, info: info === '' ? null : info };
}

/**
 * Parses a `pain.002.001.10` file. Throws `Iso20022ParseError` for input over
 * `MAX_ISO20022_BYTES`, a DOCTYPE or ENTITY declaration, malformed XML, another namespace, a missing
 * `GrpHdr/MsgId`, `GrpHdr/CreDtTm` or `OrgnlGrpInfAndSts/OrgnlMsgId`, or a transaction whose status
 * cannot be told (no `TxSts`, no payment status, no group status). Does not validate against the XSD.
 */
export function parsePain002(xml: string): Pain002Report {
  const root = new Reader(parseDocument(xml, 'pain.002.001.10', 'CstmrPmtStsRpt'), 'CstmrPmtStsRpt', 'pain.002.001.10');
  const hdr = root.need('GrpHdr');
  const grp = root.need('OrgnlGrpInfAndSts');
  const groupStatus = grp.text('GrpSts');
  const groupReason = reason(grp);
  return {
    messageId: hdr.needText('MsgId'),
    createdAt: hdr.needText('CreDtTm'),
    originalMessageId: grp.needText('OrgnlMsgId'),
    groupStatus,
    groupReasonCode: groupReason.code,
    payments: root.all('OrgnlPmtInfAndSts').map((pmt) => {
      const status = pmt.text('PmtInfSts');
      const pmtReason = reason(pmt);
      return {
        originalPaymentInformationId: pmt.text('OrgnlPmtInfId'),
        status,
        reasonCode: pmtReason.code,
        transactions: pmt.all('TxInfAndSts').map((tx) => {
          const txStatus = tx.text('TxSts') ?? status ?? groupStatus;
          if (!txStatus) throw tx.error(`${tx.path}/TxSts is missing and no payment or group status applies`);
          const r = reason(tx);
          return {
            originalEndToEndId: tx.text('OrgnlEndToEndId'),
            uetr: tx.text('OrgnlUETR'),
            status: txStatus,
            reasonCode: r.code,
            additionalInfo: r.info,
          };
        }),
      };
    }),
  };
}

/** A status with an optional reason code and text, as written into a `pain.002`. */
export interface Pain002StatusInput {
  status: string;
  reasonCode?: string | null;
  /** At most 105 characters. */
  additionalInfo?: string | null;
}

/** What {@link writePain002} writes: the answer to one `pain.001`. */
export interface Pain002Input {
  messageId: string;
  createdAt: Date;
  originalMessageId: string;
  /** Group status (`ACCP`, `RJCT`, `PART`, ...) with its reason; omitted when absent. */
  group?: Pain002StatusInput | null;
  payments: Array<{
    originalPaymentInformationId: string;
    status?: Pain002StatusInput | null;
    transactions: Array<{ originalEndToEndId: string; uetr?: string | null } & Pain002StatusInput>;
  }>;
}

function statusReason(s: Pain002StatusInput | null | undefined): XmlTree[] | undefined {
  if (!s || (!s.reasonCode && !s.additionalInfo)) return undefined;
  return [{ Rsn: s.reasonCode ? { Cd: s.reasonCode } : undefined, AddtlInf: s.additionalInfo ?? undefined }];
}

/**
 * Writes a `pain.002.001.10` status report (UTF-8 XML text, namespace
 * `urn:iso:std:iso:20022:tech:xsd:pain.002.001.10`) answering the `pain.001` `originalMessageId`.
 * Pure; does not validate (no pinned package ships the `pain.002.001.10` XSD: docs/rails.md "ISO
 * 20022 schemas").
 */
export function writePain002(input: Pain002Input): string {
  return writeDocument('pain.002.001.10', {
    CstmrPmtStsRpt: {
      GrpHdr: { MsgId: input.messageId, CreDtTm: isoDateTime(input.createdAt) },
      OrgnlGrpInfAndSts: {
        OrgnlMsgId: input.originalMessageId,
        OrgnlMsgNmId: 'pain.001.001.09',
        GrpSts: input.group?.status,
        StsRsnInf: statusReason(input.group),
      },
      OrgnlPmtInfAndSts: input.payments.length
        ? input.payments.map((p) => ({
            OrgnlPmtInfId: p.originalPaymentInformationId,
            PmtInfSts: p.status?.status,
            StsRsnInf: statusReason(p.status),
            TxInfAndSts: p.transactions.length
              ? p.transactions.map((t) => ({
                  OrgnlEndToEndId: t.originalEndToEndId,
                  OrgnlUETR: t.uetr ?? undefined,
                  TxSts: t.status,
                  StsRsnInf: statusReason(t),
                }))
              : undefined,
          }))
        : undefined,
    },
  });
}
