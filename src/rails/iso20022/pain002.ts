/** The bank's `pain.002.001.10` status report (docs/rails.md "ISO 20022 schemas"): read by the service, written by the test bank. */
import { isoDateTime, parseDocument, Reader, writeDocument, type XmlTree } from './xml';

export interface Pain002Transaction {
  originalEndToEndId: string | null;
  uetr: string | null;
  /** `TxSts`, else the payment's status, else the group's. */
  status: string;
  /** First `StsRsnInf/Rsn/Cd` (or `Prtry`). */
  reasonCode: string | null;
  additionalInfo: string | null;
}

/** Codes and dates are the file's own. */
export interface Pain002Report {
  messageId: string;
  createdAt: string;
  /** `OrgnlMsgId`. */
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

/** Throws `Iso20022ParseError` (size, DOCTYPE, malformed, namespace, missing ids, undeterminable status); no XSD check. */
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

export interface Pain002StatusInput {
  status: string;
  reasonCode?: string | null;
  /** At most 105 characters. */
  additionalInfo?: string | null;
}

export interface Pain002Input {
  messageId: string;
  createdAt: Date;
  originalMessageId: string;
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

/** Pure; not validated (no pinned package ships the pain.002 XSD). */
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
