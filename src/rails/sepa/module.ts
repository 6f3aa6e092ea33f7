/** The sepa_eur rail module (docs/rails.md "The seam", "Files", "Inbound files"): SEPA Credit Transfers in ISO 20022 files over SFTP. */
import { composeIBAN, countrySpecs } from 'ibantools';
import { randomDigits } from '../../domain/ids';
import type { ComposedRailFile, ConfiguredRail, NewRailEvent, RailFileRecord, RailHost, RailInstructionRecord, RailModule, RailStore } from '../adapter';
import { advanceInRuns, type InstructionMove } from '../instruction-moves';
import type { Camt054Entry } from '../iso20022/camt054';
import { type Camt054Header, streamCamt054 } from '../iso20022/camt054-stream';
import { Iso20022ParseError } from '../iso20022/xml';
import { parsePain002 } from '../iso20022/pain002';
import { writePain001 } from '../iso20022/pain001';
import { configureIso20022Tools } from '../iso20022/schemas';
import { validateIso20022 } from '../iso20022/validate';
import { mapIso20022Reason, returnFailure } from '../reason-codes';
import { pollFileRailInbox, quarantineInboundFile, sftpUpload } from '../file-rail';
import { executionDate, sepaLatestArrival } from '../target2';
import { sepaCarriageProblem, sepaMessageId, sepaRailAdapter } from './adapter';
import { SEPA_RAIL, type SepaRailConfig, sepaRailConfig } from './config';
import { sepaStatements } from './statements';
import { SEPA_SETTINGS } from './settings';
import { sepaVerifyPayee } from './payee-verification';

/** An outbound file whose XML does not validate: never recorded, never sent (an operator alert). */
export class InvalidRailFileError extends Error {
  constructor(readonly errors: string[]) {
    super(`The pain.001 file does not validate against the official XSD: ${errors.slice(0, 3).join('; ')}`);
    this.name = 'InvalidRailFileError';
  }
}

/** Validates against the official XSD; throws {@link InvalidRailFileError}. */
export async function composeSepaFile(sepa: SepaRailConfig, rows: RailInstructionRecord[], now: Date, fileId: string, log: RailHost['log']): Promise<ComposedRailFile> {
  const messageId = sepaMessageId(fileId);
  const paymentInformationId = `${messageId}-1`;
  const requestedExecutionDate = executionDate(now, sepa.cutOff, sepa.timeZone);
  const xml = writePain001({
    messageId,
    createdAt: now,
    paymentInformationId,
    requestedExecutionDate,
    // One booking per transaction, so each payout is confirmed by its own camt.054 entry.
    batchBooking: false,
    debtor: sepa.debtor,
    transfers: rows.map((r) => ({
      endToEndId: r.endToEndId,
      uetr: r.uetr!,
      amountMinor: r.amountMinor.toString(),
      currency: 'EUR' as const,
      creditor: { name: r.creditorName, iban: r.creditorIban!, bic: r.creditorBic },
      remittanceInformation: r.remittance,
    })),
  });
  const validation = await validateIso20022(xml, 'pain.001.001.09');
  if (!validation.valid) {
    log.error({ rail: SEPA_RAIL, fileId, errors: validation.errors.slice(0, 5) }, 'outbound bank file failed XSD validation; nothing sent');
    throw new InvalidRailFileError(validation.errors);
  }
  return { name: `${messageId}.xml`, messageId, kind: 'pain.001', content: xml, executionDate: requestedExecutionDate, settlementWindow: null, groupOf: () => paymentInformationId };
}

/** pain.002 statuses that mean "accepted, not yet booked". */
const ACCEPTED = new Set(['ACCP', 'ACSP', 'ACTC', 'ACWC', 'ACFC', 'PART', 'ACCC']);

function kindOf(xml: string): 'pain.002' | 'camt.054' | null {
  if (xml.includes('urn:iso:std:iso:20022:tech:xsd:pain.002.')) return 'pain.002';
  if (xml.includes('urn:iso:std:iso:20022:tech:xsd:camt.054.')) return 'camt.054';
  return null;
}

/** By EndToEndId, else UETR; a given original message id must be the instruction's file. */
async function findInstruction(store: RailStore, refs: { endToEndId: string | null; uetr: string | null; originalMessageId: string | null }) {
  if (!refs.endToEndId && !refs.uetr) return undefined;
  const row = await store.instructionByReference({ endToEndId: refs.endToEndId, uetr: refs.uetr ? refs.uetr.toLowerCase() : null });
  if (!row) return undefined;
  if (refs.uetr && row.uetr !== refs.uetr.toLowerCase()) return undefined;
  if (refs.originalMessageId && row.railFileId && sepaMessageId(row.railFileId) !== refs.originalMessageId) return undefined;
  return row;
}

async function pain002Events(store: RailStore, file: RailFileRecord, xml: string) {
  const report = parsePain002(xml);
  const events: NewRailEvent[] = [];
  const at = new Date(report.createdAt);
  const occurredAt = Number.isNaN(at.getTime()) ? null : at;
  const push = async (status: string, reasonCode: string | null, refs: { endToEndId: string | null; uetr: string | null }, details: Record<string, unknown>) => {
    const type = status === 'RJCT' ? 'rejected' : ACCEPTED.has(status) ? 'accepted' : null;
    if (!type) return;
    const instruction = await findInstruction(store, { ...refs, originalMessageId: report.originalMessageId });
    events.push({
      id: `${file.id}:${events.length}`,
      rail: file.rail,
      railFileId: file.id,
      type,
      payoutId: instruction?.payoutId ?? null,
      attempt: instruction?.attempt ?? null,
      depositId: null,
      endToEndId: refs.endToEndId,
      uetr: refs.uetr,
      reasonCode,
      occurredAt,
      details: { source: 'pain.002', status, originalMessageId: report.originalMessageId, ...details },
    });
  };
  let transactions = 0;
  for (const p of report.payments) {
    for (const t of p.transactions) {
      transactions++;
      await push(t.status, t.reasonCode ?? p.reasonCode, { endToEndId: t.originalEndToEndId, uetr: t.uetr }, { originalPaymentInformationId: p.originalPaymentInformationId, additionalInfo: t.additionalInfo });
    }
  }
  // A rejection without transaction details rejects every transaction of the original file.
  const wholeStatus = report.payments.find((p) => p.transactions.length === 0 && p.status)?.status ?? (transactions === 0 ? report.groupStatus : null);
  if (wholeStatus === 'RJCT') {
    const original = await store.outboundFileByMessageId(report.originalMessageId);
    const reason = report.payments.find((p) => p.reasonCode)?.reasonCode ?? report.groupReasonCode;
    for (const i of original ? await store.instructionsOfFile(original.id) : []) {
      await push('RJCT', reason, { endToEndId: i.endToEndId, uetr: i.uetr }, { level: 'group' });
    }
    if (!original) await push('RJCT', reason, { endToEndId: null, uetr: null }, { level: 'group' });
  }
  return { kind: 'pain.002', messageId: report.messageId, events };
}

async function camt054BatchEvents(store: RailStore, file: RailFileRecord, header: Camt054Header, entries: Camt054Entry[], first: number): Promise<NewRailEvent[]> {
  const booked = entries.filter((e) => e.status === 'BOOK' && !e.reversal);
  const endToEndIds = [...new Set(booked.map((e) => e.endToEndId).filter((v): v is string => !!v))];
  const uetrs = [...new Set(booked.filter((e) => !e.endToEndId && e.uetr).map((e) => e.uetr!.toLowerCase()))];
  const rows = await store.instructionsByReferences({ endToEndIds, uetrs });
  const byEndToEnd = new Map(rows.map((r) => [r.endToEndId, r]));
  const byUetr = new Map(rows.filter((r) => r.uetr).map((r) => [r.uetr!, r]));
  return booked.map((e, i) => {
    const found = e.endToEndId ? byEndToEnd.get(e.endToEndId) : e.uetr ? byUetr.get(e.uetr.toLowerCase()) : undefined;
    const instruction = found && (!e.uetr || found.uetr === e.uetr.toLowerCase()) ? found : undefined;
    const type: NewRailEvent['type'] = e.creditDebit === 'DBIT' ? 'settled' : instruction || e.returnReasonCode ? 'returned' : 'credit';
    const bookedAt = e.bookingDate ? new Date(e.bookingDate) : null;
    return {
      id: `${file.id}:${first + i}`,
      rail: file.rail,
      railFileId: file.id,
      type,
      payoutId: instruction?.payoutId ?? null,
      attempt: instruction?.attempt ?? null,
      depositId: null,
      endToEndId: e.endToEndId,
      uetr: e.uetr,
      reasonCode: e.returnReasonCode,
      occurredAt: bookedAt && !Number.isNaN(bookedAt.getTime()) ? bookedAt : null,
      details: { source: 'camt.054', accountIban: header.accountIban, ...entryDetails(e) },
    };
  });
}

/** The instruction moves of `events`, in file order. */
function advanceInstructionsOf(store: RailStore, events: NewRailEvent[], now: Date): Promise<void> {
  const moves: InstructionMove[] = [];
  for (const e of events) {
    const to = e.type === 'accepted' || e.type === 'rejected' || e.type === 'settled' || e.type === 'returned' ? e.type : null;
    if (e.payoutId && e.attempt !== null && to) moves.push({ key: { payoutId: e.payoutId, attempt: e.attempt }, to });
  }
  return advanceInRuns(store, moves, now);
}

/** Streams a camt.054 in one transaction (docs/rails.md "Bank files at scale"); null when another worker holds the file. */
async function recordCamt054(host: RailHost, file: RailFileRecord, xml: string, now: Date): Promise<{ events: NewRailEvent[]; recorded: Set<string> } | null> {
  const events: NewRailEvent[] = [];
  const recorded = await host.transaction(async (store) => {
    if ((await store.lockInboundFile(file.id)) !== 'received') return null;
    const ids = new Set<string>();
    let writing: Promise<void> = Promise.resolve();
    const write = async (batch: NewRailEvent[]) => {
      for (const id of await store.recordEvents(batch, now)) ids.add(id);
      await advanceInstructionsOf(store, batch, now);
    };
    const read = await streamCamt054(xml, async (header, entries) => {
      const batch = await camt054BatchEvents(store, file, header, entries, events.length);
      events.push(...batch);
      await writing;
      writing = write(batch);
      writing.catch(() => undefined);
    });
    await writing;
    await store.markInboundProcessed(file.id, { kind: 'camt.054', messageId: read.messageId, transactions: events.length }, now);
    return ids;
  });
  return recorded ? { events, recorded } : null;
}

/** All strings; amounts in minor units. */
function entryDetails(e: Camt054Entry): Record<string, unknown> {
  return {
    creditDebit: e.creditDebit,
    amountMinor: e.amountMinor,
    currency: e.currency,
    accountServicerReference: e.accountServicerReference,
    entryReference: e.entryReference,
    creditorIban: e.creditorIban,
    debtorName: e.debtorName,
    debtorIban: e.debtorIban,
    remittanceInformation: e.remittanceInformation,
  };
}

/** One transaction holding the file's row; a file that does not parse is quarantined. */
export async function readSepaInboundFile(host: RailHost, file: RailFileRecord): Promise<{ events: number; quarantined: boolean }> {
  const now = host.now();
  const xml = file.content ?? '';
  const kind = kindOf(xml);
  if (!kind) return quarantineInboundFile(host, file, 'not a pain.002 or camt.054 document', 'it does not parse');
  let read: { events: NewRailEvent[]; recorded: Set<string> } | null;
  try {
    read = kind === 'camt.054' ? await recordCamt054(host, file, xml, now) : await recordPain002(host, file, xml, now);
  } catch (err) {
    if (err instanceof Iso20022ParseError) return quarantineInboundFile(host, file, err.message, 'it does not parse');
    throw err;
  }
  if (!read) return { events: 0, quarantined: false };
  const { events, recorded } = read;
  for (const e of events) if (e.type === 'returned' && recorded.has(e.id)) host.metrics.railReturns.inc({ rail: file.rail, code: e.reasonCode ?? 'none', late: 'false' });
  const unmatched = events.filter((e) => recorded.has(e.id) && !e.payoutId && e.type !== 'credit').length;
  if (unmatched > 0) {
    host.metrics.railUnmatchedItems.inc({ rail: file.rail }, unmatched);
    host.log.warn({ rail: file.rail, fileId: file.id, unmatched }, 'bank statuses matched no payout; kept as unmatched items');
  }
  host.metrics.railFiles.inc({ rail: file.rail, direction: 'inbound', outcome: 'received' });
  return { events: recorded.size, quarantined: false };
}

/** Null when another worker holds the file. */
async function recordPain002(host: RailHost, file: RailFileRecord, xml: string, now: Date): Promise<{ events: NewRailEvent[]; recorded: Set<string> } | null> {
  const parsed = await pain002Events(host.store, file, xml);
  const recorded = await host.transaction(async (store) => {
    if ((await store.lockInboundFile(file.id)) !== 'received') return null;
    const ids = await store.recordEvents(parsed.events, now);
    await advanceInstructionsOf(store, parsed.events, now);
    await store.markInboundProcessed(file.id, { kind: parsed.kind, messageId: parsed.messageId, transactions: parsed.events.length }, now);
    return new Set(ids);
  });
  return recorded ? { events: parsed.events, recorded } : null;
}

function configured(sepa: SepaRailConfig): ConfiguredRail {
  const range = sepa.virtualIbanRange;
  const length = range ? countrySpecs[range.country]?.chars : undefined;
  return {
    pollIntervalMs: sepa.pollIntervalMs,
    adapter: (host) => ({
      ...sepaRailAdapter(sepa, {
        enqueue: async (t) => {
          const now = host.now();
          const row = await host.store.queueInstruction(
            {
              payoutId: t.payoutId,
              attempt: t.attempt,
              rail: SEPA_RAIL,
              businessId: t.businessId,
              endToEndId: t.endToEndId,
              uetr: t.uetr,
              traceNumber: null,
              details: null,
              amountMinor: BigInt(t.amountMinor),
              currency: t.currency,
              creditorName: t.creditorName,
              creditorIban: t.creditorIban,
              creditorBic: t.creditorBic,
              remittance: t.remittance,
            },
            now,
          );
          await host.ensureWindow(sepa.batchWindowMs);
          return { endToEndId: row.endToEndId, uetr: row.uetr! };
        },
      }),
      verifyPayee: (request) => sepaVerifyPayee(sepa, host, request),
    }),
    poll: (host) => pollFileRailInbox(host, sepa, (file) => readSepaInboundFile(host, file)),
    readInboundFile: (host, file) => readSepaInboundFile(host, file),
    files: {
      compose: (rows, now, fileId, log) => composeSepaFile(sepa, rows, now, fileId, log),
      maxTransactions: sepa.maxFileTransactions,
      upload: sftpUpload(sepa.sftp, sepa.uploadDir),
      settlesAt: () => null,
    },
    latestArrival: (now) => sepaLatestArrival(now, sepa.cutOff, sepa.timeZone),
    ...(range && length
      ? {
          virtualAccounts: {
            currency: 'EUR',
            issue: (beneficiaryName: string) => {
              const bbanLength = length - 4;
              const bban = `${range.bbanPrefix}${randomDigits(Math.max(0, bbanLength - range.bbanPrefix.length))}`.slice(0, bbanLength);
              const iban = composeIBAN({ countryCode: range.country, bban });
              if (!iban) throw new Error(`RAIL_SEPA_VIRTUAL_IBAN_RANGE ${range.country}:${range.bbanPrefix} does not give valid ${range.country} IBANs`);
              return { iban, bic: sepa.debtor.bic, bank_name: sepa.bankName, beneficiary_name: beneficiaryName };
            },
          },
        }
      : {}),
    creditOf: (d, eventId) => {
      const s = (v: unknown) => (typeof v === 'string' && v ? v : null);
      const identifier = (s(d.creditorIban) ?? s(d.accountIban))?.replace(/\s+/g, '').toUpperCase();
      if (s(d.currency) !== 'EUR' || !s(d.amountMinor) || !identifier) return null;
      return {
        currency: 'EUR',
        amountMinor: s(d.amountMinor)!,
        accountIdentifier: identifier,
        externalId: s(d.accountServicerReference) ?? s(d.entryReference) ?? eventId,
        senderName: s(d.debtorName),
        reference: s(d.remittanceInformation),
      };
    },
  };
}

export const sepaRailModule: RailModule<typeof SEPA_SETTINGS> = {
  id: SEPA_RAIL,
  rail: SEPA_RAIL,
  settings: SEPA_SETTINGS,
  connect(config) {
    // The validator of the files this module writes takes its tools from the module's settings.
    configureIso20022Tools({ xsdDir: config.ISO20022_XSD_DIR, xmllintPath: config.XMLLINT_PATH });
    const r = sepaRailConfig(config);
    return r.config ? { rail: configured(r.config), missing: [] } : { rail: null, missing: r.missing };
  },
  statements: sepaStatements,
  failureOf(type, code) {
    if (type === 'rejected') {
      const m = mapIso20022Reason(code);
      return { failureCode: m.failureCode, message: m.message, retryable: m.retryable, railReasonCode: m.railReasonCode };
    }
    const f = returnFailure(code);
    return { failureCode: f.failureCode, message: f.message, retryable: false, railReasonCode: f.railReasonCode };
  },
  carriageProblem(details, reference) {
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    return sepaCarriageProblem({ name: str(details.holder_name) ?? '', iban: str(details.iban), bic: str(details.bic), remittance: reference });
  },
};
