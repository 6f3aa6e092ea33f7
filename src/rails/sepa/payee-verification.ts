/**
 * Verification of Payee on the live sepa_eur rail (docs/payee-verification.md "On the bank's SFTP"):
 * the EBICS 3.0 exchange over our SFTP transport. A one-transaction `pain.001.001.09` for the payee
 * (`VOP-<payout id>.xml`, the same name on every ask) goes to the VoP upload directory; the bank's
 * `pain.002.001.14` VoP report `vop_VOP-<payout id>.xml` is awaited in the VoP download directory
 * for at most `timeoutMs` (EPC: 5 s), else the answer is `unavailable`.
 */
import { electronicFormatIBAN } from 'ibantools';
import type { PayeeVerificationAnswer, PayeeVerificationRequest, RailHost } from '../adapter';
import { writePain001 } from '../iso20022/pain001';
import { parseVopReport } from '../iso20022/pain002-vop';
import { Iso20022ParseError } from '../iso20022/xml';
import { SftpError, SftpTransport } from '../sftp/transport';
import { executionDate } from '../target2';
import { sepaCarriageProblem, sepaUetr } from './adapter';
import type { SepaRailConfig } from './config';

/** Largest VoP report read (bytes). */
const MAX_REPORT_BYTES = 1024 * 1024;
/** How often the report is looked for while waiting, in ms. */
export const VOP_POLL_MS = 250;
/** Time allowed to open the connection that waits for the report, in ms (a verification takes at most 2 × RAIL_SEPA_VOP_TIMEOUT + this). */
export const VOP_CONNECT_MS = 3_000;

/** The VoP request's message id (at most 35 characters, the SEPA character set). */
export function vopMessageId(payoutId: string): string {
  return `VOP-${payoutId.replace('_', '-')}`.slice(0, 35);
}

/** The one-transaction pain.001 of a VoP request: the creditor's name and IBAN and the payout's amount. */
export function composeVopRequest(sepa: SepaRailConfig, request: PayeeVerificationRequest, now: Date): string {
  const messageId = vopMessageId(request.payoutId);
  return writePain001({
    messageId,
    createdAt: now,
    paymentInformationId: `${messageId}-1`,
    requestedExecutionDate: executionDate(now, sepa.cutOff, sepa.timeZone),
    batchBooking: false,
    debtor: sepa.debtor,
    transfers: [
      {
        endToEndId: `${messageId}-1`.slice(0, 35),
        uetr: sepaUetr(request.payoutId, 0),
        amountMinor: request.amountMinor,
        currency: 'EUR',
        creditor: { name: request.creditor.name, iban: electronicFormatIBAN(request.creditor.account.iban ?? '') ?? '', bic: request.creditor.account.bic ?? null },
        remittanceInformation: null,
      },
    ],
  });
}

/** Asks the bank (see the module comment): SFTP failures and a late bank answer `unavailable`, a report that does not parse `not_possible`. */
export async function sepaVerifyPayee(sepa: SepaRailConfig, host: Pick<RailHost, 'now' | 'log'>, request: PayeeVerificationRequest): Promise<PayeeVerificationAnswer> {
  const account = request.creditor.account;
  const problem = sepaCarriageProblem({ name: request.creditor.name, iban: account.iban, bic: account.bic });
  if (problem) return { result: 'not_possible', nameReturned: null, reasonCode: 'AC01' };
  const started = Date.now();
  const messageId = vopMessageId(request.payoutId);
  const answerName = `vop_${messageId}.xml`;
  // The upload gets the whole budget; the wait what is left of it, plus time to connect (VOP_CONNECT_MS).
  const upload = new SftpTransport({ ...sepa.sftp, connectTimeoutMs: sepa.vop.timeoutMs, operationTimeoutMs: sepa.vop.timeoutMs });
  let waiting: SftpTransport | null = null;
  try {
    await upload.upload(sepa.vop.uploadDir, `${messageId}.xml`, Buffer.from(composeVopRequest(sepa, request, host.now()), 'utf8'));
    const waitMs = Math.max(0, sepa.vop.timeoutMs - (Date.now() - started));
    waiting = new SftpTransport({ ...sepa.sftp, connectTimeoutMs: VOP_CONNECT_MS, operationTimeoutMs: waitMs + VOP_CONNECT_MS });
    const content = await waiting.awaitFile(sepa.vop.downloadDir, answerName, MAX_REPORT_BYTES, waitMs, VOP_POLL_MS);
    if (!content) return { result: 'unavailable', reason: `no VoP report within ${sepa.vop.timeoutMs} ms` };
    const report = parseVopReport(content.toString('utf8'));
    const tx = report.transactions[0];
    if (report.originalMessageId !== messageId || !tx) return { result: 'not_possible', nameReturned: null, reasonCode: 'NR01' };
    return { result: tx.result, nameReturned: tx.nameReturned, reasonCode: tx.reasonCode };
  } catch (err) {
    if (err instanceof Iso20022ParseError) {
      // Asking again would read the same file: the answer is "not possible", for an operator to look at.
      host.log.error({ payoutId: request.payoutId, err: err.message }, 'Verification of Payee: the bank report does not parse');
      return { result: 'not_possible', nameReturned: null, reasonCode: 'NR01' };
    }
    if (!(err instanceof SftpError)) throw err;
    host.log.warn({ payoutId: request.payoutId, err: err.message }, 'Verification of Payee: no answer from the bank');
    return { result: 'unavailable', reason: err.message };
  } finally {
    await upload.close().catch(() => undefined);
    await waiting?.close().catch(() => undefined);
  }
}
