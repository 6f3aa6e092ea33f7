/**
 * The test bank's answering rules (docs/rails.md "Test bank"): pure functions from an uploaded
 * `pain.001.001.09` to the files the bank puts in its outbox (`pain.002.001.10` status reports and
 * `camt.054.001.08` notifications), and the notification of an incoming credit to a virtual IBAN.
 * The SFTP side (picking files up, writing answers) is elsewhere; this module does no I/O other
 * than loading the XSD it validates with.
 *
 * ## Magic values (the CREDITOR NAME of a transaction, as written in the file; case-insensitive)
 *
 * | creditor name contains | the bank answers                                                                                   | the payout ends        |
 * |------------------------|----------------------------------------------------------------------------------------------------|------------------------|
 * | (none of these)        | `pain.002` `ACCP` for the transaction, then a `camt.054` `DBIT` `BOOK` entry (booking date = now)  | succeeded              |
 * | `AC01`                 | `pain.002` `RJCT` reason `AC01` (incorrect account number)                                         | failed                 |
 * | `AM04`                 | `pain.002` `RJCT` reason `AM04` (insufficient funds)                                               | failed                 |
 * | `AC04`                 | `ACCP`, `camt.054` `DBIT` `BOOK`, then a `camt.054` `CRDT` `BOOK` return with `RtrInf` `AC04`      | refunded               |
 * | `MS03`                 | the same, with return reason `MS03` (reason not specified)                                        | refunded               |
 * | `SILENT`               | nothing at all for that transaction (it is in no answer file)                                      | stays delivering       |
 * | `TWICE`                | besides its outcome above: the `pain.002` of the file is emitted twice (two names, same content)   | as without it          |
 *
 * When a name holds several, the first of `SILENT`, `AC01`, `AM04`, `AC04`, `MS03` decides; `TWICE`
 * combines with any. A file that does not validate against the official `pain.001.001.09` XSD is
 * answered with one `pain.002` with group status `RJCT`, reason `FF01` (invalid file format), and
 * nothing else.
 *
 * ## Answer files, in the order the bank delivers them
 *
 * 1. `pain002_<MsgId>_1.xml` (and `pain002_<MsgId>_2.xml`, the same bytes, for `TWICE`): one status
 *    report for the whole file; group status `ACCP` (all answered accepted), `RJCT` (all rejected)
 *    or `PART`; one `OrgnlPmtInfAndSts` per payment information block with one `TxInfAndSts` per
 *    answered transaction. Left out when every transaction is `SILENT`.
 * 2. `camt054_<MsgId>_<n>.xml`: per payment information block, one notification on the debtor's
 *    IBAN with one `DBIT` `BOOK` entry per accepted transaction (`Refs`: `MsgId`, `PmtInfId`,
 *    `EndToEndId`, `UETR`).
 * 3. `camt054_<MsgId>_<n>.xml`: per block with returns, one notification with one `CRDT` `BOOK`
 *    entry per returned transaction (`RtrInf/Rsn/Cd`, same `EndToEndId` and `UETR`, the creditor as
 *    the debtor of the return).
 *
 * `<MsgId>` is the uploaded file's message id with every character other than `A-Z a-z 0-9 . -`
 * replaced by `_`; `<n>` numbers the answer files of one upload from 1. The same upload and `now`
 * always give the same files (names, message ids and bytes).
 */
import { createHash } from 'node:crypto';
import { writeCamt054, type Camt054EntryInput } from '../../src/rails/iso20022/camt054';
import { parsePain001, type Pain001File } from '../../src/rails/iso20022/pain001';
import { writePain002 } from '../../src/rails/iso20022/pain002';
import { type PayeeMatch, type VopTransactionResult, writeVopReport } from '../../src/rails/iso20022/pain002-vop';
import { validateIso20022 } from '../../src/rails/iso20022/validate';

/** The magic substrings of a creditor name, in the order they decide (see the table above). */
export const TEST_BANK_MAGIC = ['SILENT', 'AC01', 'AM04', 'AC04', 'MS03'] as const;
/** The magic substring that makes the bank emit the file's status report twice. */
export const TEST_BANK_TWICE = 'TWICE';

/** One file the bank puts in its outbox. */
export interface BankFile {
  name: string;
  xml: string;
}

type Outcome = 'settle' | 'SILENT' | 'AC01' | 'AM04' | 'AC04' | 'MS03';

/** What the bank does with a transaction whose creditor is `name` (see the table above). */
export function outcomeFor(name: string | null): Outcome {
  const upper = (name ?? '').toUpperCase();
  return TEST_BANK_MAGIC.find((m) => upper.includes(m)) ?? 'settle';
}

function fileId(msgId: string): string {
  return msgId.replace(/[^A-Za-z0-9.-]/g, '_');
}

/** A deterministic message id (at most 35 characters) for answer `n` to `msgId`. */
function answerMessageId(kind: string, msgId: string, n: number): string {
  const digest = createHash('sha256').update(`${kind}\n${msgId}\n${n}`).digest('hex').slice(0, 24);
  return `TB${kind === 'pain002' ? 'S' : 'N'}${n}-${digest}`.slice(0, 35);
}

function messageIdOf(xml: string): string {
  try {
    const id = parsePain001(xml).messageId;
    if (id.length <= 35) return id;
  } catch {
    // an unreadable file still gets its rejection, addressed to no message id
  }
  return 'UNKNOWN';
}

/**
 * Answers an uploaded `pain.001.001.09` (see the module's table). Validates it against the official
 * XSD first (an invalid file: one `pain.002` `RJCT` `FF01`). `now` is the answers' creation and
 * booking time. Rejects (async) only when the XSD cannot be loaded (see `validateIso20022`).
 */
export async function answerPain001(xml: string, now: Date): Promise<BankFile[]> {
  const validation = await validateIso20022(xml, 'pain.001.001.09');
  if (!validation.valid) {
    const msgId = messageIdOf(xml);
    const name = `pain002_${fileId(msgId)}_1.xml`;
    return [
      {
        name,
        xml: writePain002({
          messageId: answerMessageId('pain002', msgId, 1),
          createdAt: now,
          originalMessageId: msgId,
          group: { status: 'RJCT', reasonCode: 'FF01', additionalInfo: (validation.errors[0] ?? 'invalid file').slice(0, 105) },
          payments: [],
        }),
      },
    ];
  }
  return answerValidFile(parsePain001(xml), now);
}

function answerValidFile(file: Pain001File, now: Date): BankFile[] {
  const msgId = file.messageId;
  const out: BankFile[] = [];
  const next = (kind: 'pain002' | 'camt054', xml: string) => out.push({ name: `${kind}_${fileId(msgId)}_${out.length + 1}.xml`, xml });
  const nextId = (kind: 'pain002' | 'camt054') => answerMessageId(kind, msgId, out.length + 1);

  const answered = file.payments.map((p) => ({
    payment: p,
    transfers: p.transfers.map((t) => ({ t, outcome: outcomeFor(t.creditor.name) })).filter((x) => x.outcome !== 'SILENT'),
  }));
  const all = answered.flatMap((a) => a.transfers);
  if (all.length > 0) {
    const rejected = all.filter((x) => x.outcome === 'AC01' || x.outcome === 'AM04').length;
    const groupStatus = rejected === 0 ? 'ACCP' : rejected === all.length ? 'RJCT' : 'PART';
    const report = writePain002({
      messageId: nextId('pain002'),
      createdAt: now,
      originalMessageId: msgId,
      group: { status: groupStatus },
      payments: answered
        .filter((a) => a.transfers.length > 0)
        .map((a) => ({
          originalPaymentInformationId: a.payment.paymentInformationId,
          transactions: a.transfers.map(({ t, outcome }) =>
            outcome === 'AC01' || outcome === 'AM04'
              ? { originalEndToEndId: t.endToEndId, uetr: t.uetr, status: 'RJCT', reasonCode: outcome }
              : { originalEndToEndId: t.endToEndId, uetr: t.uetr, status: 'ACCP' },
          ),
        })),
    });
    next('pain002', report);
    if (all.some(({ t }) => (t.creditor.name ?? '').toUpperCase().includes(TEST_BANK_TWICE))) next('pain002', report);
  }

  const nowIso = now.toISOString();
  const booked = (phase: 'booking' | 'return') =>
    answered.map((a) => ({
      payment: a.payment,
      entries: a.transfers
        .filter(({ outcome }) => (phase === 'booking' ? outcome === 'settle' || outcome === 'AC04' || outcome === 'MS03' : outcome === 'AC04' || outcome === 'MS03'))
        .map(({ t, outcome }, i): Camt054EntryInput => ({
          entryReference: `${phase === 'booking' ? 'B' : 'R'}${i + 1}`,
          accountServicerReference: `${phase === 'booking' ? 'BOOK' : 'RTRN'}-${createHash('sha256').update(`${msgId}\n${t.endToEndId}`).digest('hex').slice(0, 20)}`,
          creditDebit: phase === 'booking' ? 'DBIT' : 'CRDT',
          status: 'BOOK',
          bookingDate: nowIso,
          amountMinor: t.amountMinor,
          currency: t.currency,
          originalMessageId: msgId,
          paymentInformationId: a.payment.paymentInformationId,
          endToEndId: t.endToEndId,
          uetr: t.uetr,
          returnReasonCode: phase === 'return' ? outcome : null,
          debtorName: phase === 'return' ? t.creditor.name : a.payment.debtor.name,
          debtorIban: phase === 'return' ? t.creditor.iban : a.payment.debtor.iban,
          creditorName: phase === 'return' ? a.payment.debtor.name : t.creditor.name,
          creditorIban: phase === 'return' ? a.payment.debtor.iban : t.creditor.iban,
          remittanceInformation: t.remittanceInformation,
        })),
    }));
  for (const phase of ['booking', 'return'] as const) {
    for (const { payment, entries } of booked(phase)) {
      if (entries.length === 0) continue;
      const id = nextId('camt054');
      next(
        'camt054',
        writeCamt054({ messageId: id, createdAt: now, notificationId: id, accountIban: payment.debtor.iban ?? '', entries }),
      );
    }
  }
  return out;
}

/** An incoming SEPA credit to one of the business's virtual IBANs (a live deposit). */
export interface IncomingCreditInput {
  /** The virtual IBAN credited. */
  creditorIban: string;
  /** Integer minor units (EUR) as a decimal string. */
  amountMinor: string;
  debtorName: string;
  debtorIban: string;
  /** Unstructured remittance text as the payer wrote it. */
  remittance: string;
  now: Date;
  /** The bank's reference of the credit: `NtryRef`, `AcctSvcrRef`, and the file's name. */
  reference: string;
}

/**
 * The `camt.054.001.08` notification of an incoming credit: one `CRDT` `BOOK` entry (bank
 * transaction code `PMNT/RCDT/ESCT`, booking date `now`) on the notification account
 * `creditorIban`, with the payer as debtor, `EndToEndId` `NOTPROVIDED` and the remittance text.
 * Named `camt054_credit_<reference>_1.xml`. Throws an `Error` when `amountMinor` is not integer
 * minor units.
 */
export function incomingCredit(input: IncomingCreditInput): BankFile {
  const messageId = answerMessageId('camt054', `credit:${input.reference}`, 1);
  return {
    name: `camt054_credit_${fileId(input.reference)}_1.xml`,
    xml: writeCamt054({
      messageId,
      createdAt: input.now,
      notificationId: messageId,
      accountIban: input.creditorIban,
      entries: [
        {
          entryReference: input.reference.slice(0, 35),
          accountServicerReference: input.reference.slice(0, 35),
          creditDebit: 'CRDT',
          status: 'BOOK',
          bookingDate: input.now.toISOString(),
          amountMinor: input.amountMinor,
          currency: 'EUR',
          endToEndId: 'NOTPROVIDED',
          debtorName: input.debtorName.slice(0, 140),
          debtorIban: input.debtorIban,
          creditorIban: input.creditorIban,
          remittanceInformation: input.remittance.slice(0, 140) || null,
        },
      ],
    }),
  };
}

/**
 * Verification of Payee (docs/payee-verification.md "Test bank"): the account holders the test bank
 * knows, by IBAN. A name equal to the holder's (case, accents and spacing aside) matches, one within
 * two letters of it is a close match (the holder's name is returned), any other is no match. An IBAN
 * not in this table matches whatever the name (so every other live test passes its verification),
 * unless the creditor name contains `NOAP` (verification not possible) or `VOPSILENT` (no answer).
 */
export const TEST_BANK_HOLDERS: Readonly<Record<string, string>> = {
  FR7630006000011234567890189: 'Marie Dupont',
  DE82370400440532013999: 'Erika Mustermann',
};

function normalisedName(name: string): string {
  return name.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
}

/** Levenshtein distance (names are short). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The test bank's verification of `name` for `iban` (see {@link TEST_BANK_HOLDERS}); null: it does not answer. */
export function verifyHolder(iban: string, name: string): { result: PayeeMatch; nameReturned: string | null } | null {
  const upper = name.toUpperCase();
  if (upper.includes('VOPSILENT')) return null;
  if (upper.includes('NOAP')) return { result: 'not_possible', nameReturned: null };
  const holder = TEST_BANK_HOLDERS[iban.replace(/\s+/g, '').toUpperCase()];
  if (!holder) return { result: 'match', nameReturned: null };
  const [given, known] = [normalisedName(name), normalisedName(holder)];
  if (given === known) return { result: 'match', nameReturned: null };
  if (editDistance(given, known) <= 2) return { result: 'close_match', nameReturned: holder };
  return { result: 'no_match', nameReturned: null };
}

/**
 * Answers a VoP request (a `pain.001.001.09` in `vop/inbox/`) with a `pain.002.001.14` VoP report
 * named `vop_<MsgId>.xml` (null when no transaction is answered: `VOPSILENT`). An invalid request is
 * answered RVNC with every transaction `not_possible` (reason `FF01` when nothing can be read).
 */
export async function answerVopRequest(xml: string, now: Date): Promise<BankFile | null> {
  const validation = await validateIso20022(xml, 'pain.001.001.09');
  const msgId = messageIdOf(xml);
  if (!validation.valid) {
    return { name: `vop_${fileId(msgId)}.xml`, xml: writeVopReport({ messageId: answerMessageId('pain002', `vop:${msgId}`, 1), createdAt: now, originalMessageId: msgId, originalPaymentInformationId: 'UNKNOWN', transactions: [], groupReasonCode: 'FF01' }) };
  }
  const file = parsePain001(xml);
  const payment = file.payments[0]!;
  const transactions: VopTransactionResult[] = [];
  for (const t of payment.transfers) {
    const v = verifyHolder(t.creditor.iban ?? '', t.creditor.name ?? '');
    if (v) transactions.push({ originalEndToEndId: t.endToEndId, iban: t.creditor.iban ?? '', ...v });
  }
  if (transactions.length === 0) return null;
  return {
    name: `vop_${fileId(file.messageId)}.xml`,
    xml: writeVopReport({
      messageId: answerMessageId('pain002', `vop:${file.messageId}`, 1),
      createdAt: now,
      originalMessageId: file.messageId,
      originalPaymentInformationId: payment.paymentInformationId,
      transactions,
    }),
  };
}
