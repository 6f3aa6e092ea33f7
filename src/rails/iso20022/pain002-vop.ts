/**
 * The Verification of Payee report, a `pain.002.001.14` (docs/payee-verification.md "The pain.002 VoP
 * report"): written by the test bank, read by the sepa module. Group status `GrpSts` RCVC (every
 * payee matches), RVCM (verified, some do not match), RVNC (none could be verified); per transaction
 * `TxSts` RCVC / RVMC / RVNM / RVNA, `StsRsnInf/Rsn/Cd` the ISO verification reason (ExternalVerificationReason1Code:
 * PN02 close match, PN01 no match, NR01 or another code when not possible; none for a match),
 * `StsRsnInf/AddtlInf` the EPC VOP code (MTCH, CMTC, NMTC, NOAP), `OrgnlTxRef/Cdtr/Pty/Nm` the holder's
 * name the bank holds (close match), `OrgnlTxRef/CdtrAcct/Id/IBAN` the account.
 */
import { isoDateTime, parseDocument, Reader, writeDocument } from './xml';

export const PAIN002_VOP = 'pain.002.001.14' as const;

export type PayeeMatch = 'match' | 'close_match' | 'no_match' | 'not_possible';

/** Per result: the transaction status (`TxSts`), the ISO verification reason (`StsRsnInf/Rsn/Cd`, none for a match) and the EPC VOP code (`StsRsnInf/AddtlInf`). */
export const VOP_CODES: Record<PayeeMatch, { status: string; reason: string | null; epc: string }> = {
  match: { status: 'RCVC', reason: null, epc: 'MTCH' },
  close_match: { status: 'RVMC', reason: 'PN02', epc: 'CMTC' },
  no_match: { status: 'RVNM', reason: 'PN01', epc: 'NMTC' },
  not_possible: { status: 'RVNA', reason: 'NR01', epc: 'NOAP' },
};

/** The code recorded for an answer: the ISO verification reason when there is one, else the EPC code (`MTCH`). */
export function vopReasonCode(result: PayeeMatch, isoReason?: string | null): string {
  return isoReason ?? VOP_CODES[result].reason ?? VOP_CODES[result].epc;
}

export interface VopTransactionResult {
  originalEndToEndId: string;
  iban: string;
  result: PayeeMatch;
  /** The holder's name as the bank knows it (a close match); at most 140 characters. */
  nameReturned: string | null;
  /** The ISO verification reason (default: that of `result`; e.g. AC01 for an account that does not exist). */
  reasonCode?: string | null;
}

export interface VopReportInput {
  messageId: string;
  createdAt: Date;
  originalMessageId: string;
  originalPaymentInformationId: string;
  transactions: VopTransactionResult[];
  /** A reason for the whole request (`FF01`: the request did not validate). */
  groupReasonCode?: string;
}

/** RCVC: all match; RVNC: none could be verified (or none answered); RVCM otherwise. */
export function vopGroupStatus(results: PayeeMatch[]): 'RCVC' | 'RVCM' | 'RVNC' {
  if (results.length === 0) return 'RVNC';
  if (results.every((r) => r === 'match')) return 'RCVC';
  if (results.every((r) => r === 'not_possible')) return 'RVNC';
  return 'RVCM';
}

/** Pure; the caller validates against the official XSD. */
export function writeVopReport(input: VopReportInput): string {
  return writeDocument(PAIN002_VOP, {
    CstmrPmtStsRpt: {
      GrpHdr: { MsgId: input.messageId, CreDtTm: isoDateTime(input.createdAt) },
      OrgnlGrpInfAndSts: {
        OrgnlMsgId: input.originalMessageId,
        OrgnlMsgNmId: 'pain.001.001.09',
        OrgnlNbOfTxs: String(input.transactions.length),
        GrpSts: vopGroupStatus(input.transactions.map((t) => t.result)),
        StsRsnInf: input.groupReasonCode ? [{ Rsn: { Cd: input.groupReasonCode } }] : undefined,
      },
      OrgnlPmtInfAndSts: input.transactions.length === 0 ? undefined : [
        {
          OrgnlPmtInfId: input.originalPaymentInformationId,
          TxInfAndSts: input.transactions.map((t) => {
            const code = t.reasonCode ?? VOP_CODES[t.result].reason;
            return {
            OrgnlEndToEndId: t.originalEndToEndId,
            TxSts: VOP_CODES[t.result].status,
            StsRsnInf: [{ Rsn: code ? { Cd: code } : undefined, AddtlInf: VOP_CODES[t.result].epc }],
            OrgnlTxRef: {
              Cdtr: t.nameReturned ? { Pty: { Nm: t.nameReturned.slice(0, 140) } } : undefined,
              CdtrAcct: { Id: { IBAN: t.iban } },
            },
            };
          }),
        },
      ],
    },
  });
}

export interface VopReport {
  messageId: string;
  originalMessageId: string;
  groupStatus: string | null;
  transactions: Array<{ originalEndToEndId: string | null; result: PayeeMatch; reasonCode: string; nameReturned: string | null }>;
}

const BY_STATUS = new Map(Object.entries(VOP_CODES).map(([k, v]) => [v.status, k as PayeeMatch]));
const BY_CODE = new Map<string, PayeeMatch>([
  ...Object.entries(VOP_CODES).flatMap(([k, v]) => (v.reason ? [[v.reason, k as PayeeMatch] as const] : [])),
  ...Object.entries(VOP_CODES).map(([k, v]) => [v.epc, k as PayeeMatch] as const),
]);

/** Reads a VoP report (fast-xml-parser, lazily loaded). Throws `Iso20022ParseError`; an unknown status reads `not_possible`. */
export function parseVopReport(xml: string): VopReport {
  const root = new Reader(parseDocument(xml, PAIN002_VOP, 'CstmrPmtStsRpt'), 'CstmrPmtStsRpt', PAIN002_VOP);
  const grp = root.need('OrgnlGrpInfAndSts');
  return {
    messageId: root.need('GrpHdr').needText('MsgId'),
    originalMessageId: grp.needText('OrgnlMsgId'),
    groupStatus: grp.text('GrpSts'),
    transactions: root.all('OrgnlPmtInfAndSts').flatMap((p) =>
      p.all('TxInfAndSts').map((tx) => {
        const reason = tx.all('StsRsnInf')[0];
        const code = reason ? (reason.text('Rsn/Cd') ?? reason.text('Rsn/Prtry')) : null;
        const epc = reason?.text('AddtlInf') ?? null;
        const status = tx.text('TxSts');
        const result = (status ? BY_STATUS.get(status) : undefined) ?? (code ? BY_CODE.get(code) : undefined) ?? (epc ? BY_CODE.get(epc) : undefined) ?? 'not_possible';
        return { originalEndToEndId: tx.text('OrgnlEndToEndId'), result, reasonCode: vopReasonCode(result, code), nameReturned: tx.text('OrgnlTxRef/Cdtr/Pty/Nm') };
      }),
    ),
  };
}
