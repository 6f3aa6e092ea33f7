/** Streamed camt.054 reader (docs/rails.md "Bank files at scale"): entries in batches, read as {@link parseEntry} does. */
import type { SaxesTag } from 'saxes';
import { lazyPackage } from '../../lazy-package';
import { decimalToMinor } from './amounts';
import type { Camt054Entry } from './camt054';
import { Iso20022ParseError, namespaceOf } from './xml';

/** Bytes; also the SFTP download limit of any ISO 20022 answer. */
export const MAX_STREAMED_ISO20022_BYTES = 64 * 1024 * 1024;

export const CAMT054_STREAM_BATCH = 1000;

const saxes = lazyPackage<typeof import('saxes')>('saxes');

const MESSAGE = 'camt.054.001.08';
const NS = namespaceOf(MESSAGE);
const CHUNK_CHARS = 64 * 1024;
const CACHED_NAMES = 1024;

export interface Camt054Header {
  messageId: string;
  createdAt: string;
  accountIban: string | null;
}

export interface Camt054StreamResult extends Camt054Header {
  entries: number;
}

/** The text fields of one `Ntry` by relative path (first occurrence), its `Amt@Ccy` and `Ustrd` lines. */
interface EntryFields {
  texts: Map<string, string>;
  currency: string | null;
  ustrd: string[];
}

function entryOf(f: EntryFields, path: string): Camt054Entry {
  const text = (p: string) => f.texts.get(p) ?? null;
  const need = (p: string) => {
    const t = text(p);
    if (t === null || t === '') throw new Iso20022ParseError(`${MESSAGE}: ${path}/${p} is missing`);
    return t;
  };
  const cdi = need('CdtDbtInd');
  if (cdi !== 'CRDT' && cdi !== 'DBIT') throw new Iso20022ParseError(`${MESSAGE}: ${path}/CdtDbtInd is ${JSON.stringify(cdi)}, not CRDT or DBIT`);
  const amountText = need('Amt');
  if (!f.currency) throw new Iso20022ParseError(`${MESSAGE}: ${path}/Amt has no Ccy`);
  const amountMinor = decimalToMinor(amountText, 2);
  if (amountMinor === null) throw new Iso20022ParseError(`${MESSAGE}: ${path}/Amt ${JSON.stringify(amountText)} is not an amount with at most 2 decimals`);
  const status = text('Sts/Cd') ?? text('Sts/Prtry');
  if (!status) throw new Iso20022ParseError(`${MESSAGE}: ${path}/Sts/Cd is missing`);
  const tx = 'NtryDtls/TxDtls/';
  const party = (role: 'Dbtr' | 'Cdtr') => text(`${tx}RltdPties/${role}/Pty/Nm`) ?? text(`${tx}RltdPties/${role}/Nm`);
  const lines = f.ustrd.filter((s) => s !== '');
  const domain = text('BkTxCd/Domn/Cd');
  return {
    entryReference: text('NtryRef'),
    accountServicerReference: text('AcctSvcrRef'),
    creditDebit: cdi,
    status,
    bookingDate: text('BookgDt/Dt') ?? text('BookgDt/DtTm'),
    amountMinor,
    currency: f.currency,
    reversal: text('RvslInd') === 'true',
    endToEndId: text(`${tx}Refs/EndToEndId`),
    uetr: text(`${tx}Refs/UETR`),
    originalMessageId: text(`${tx}Refs/MsgId`),
    returnReasonCode: text(`${tx}RtrInf/Rsn/Cd`),
    debtorName: party('Dbtr'),
    debtorIban: text(`${tx}RltdPties/DbtrAcct/Id/IBAN`),
    creditorName: party('Cdtr'),
    creditorIban: text(`${tx}RltdPties/CdtrAcct/Id/IBAN`),
    remittanceInformation: lines.length ? lines.join(' ') : null,
    bankTransactionCode: domain ? `${domain}/${text('BkTxCd/Domn/Fmly/Cd') ?? ''}/${text('BkTxCd/Domn/Fmly/SubFmlyCd') ?? ''}` : null,
    additionalEntryInfo: text('AddtlNtryInf'),
  };
}

/**
 * Calls `onEntries` (awaited) with each batch, in file order. Throws `Iso20022ParseError` as
 * {@link parseCamt054} does; batches handed over before the error stay handed over.
 */
export async function streamCamt054(
  xml: string | AsyncIterable<string | Buffer>,
  onEntries: (header: Camt054Header, entries: Camt054Entry[]) => Promise<void>,
  batchSize = CAMT054_STREAM_BATCH,
): Promise<Camt054StreamResult> {
  const parser = new (saxes().SaxesParser)({ position: false });
  const stack: string[] = [];
  /** Path of each open element relative to its `Ntry` (`''` outside). */
  const rels: string[] = [];
  let prefix = '';
  let text = '';
  let rootSeen = false;
  let header: Camt054Header | null = null;
  const hdr = { messageId: null as string | null, createdAt: null as string | null, accountIban: null as string | null };
  let notifications = 0;
  let entryDepth = -1;
  let entry: EntryFields | null = null;
  let entryIndex = 0;
  let skipDepth = -1;
  const seenDetails = new Set<string>();
  let pending: Camt054Entry[] = [];
  let total = 0;
  let failure: Error | null = null;
  const fail = (what: string) => {
    failure ??= new Iso20022ParseError(`${MESSAGE}: ${what}`);
  };

  parser.on('doctype', () => fail('DOCTYPE and ENTITY declarations are refused'));
  parser.on('error', (err) => fail(`not well-formed XML (${err.message.split('\n')[0]})`));
  // Split names and relative paths are made once per distinct name and reused (no string per element); at most CACHED_NAMES of each.
  const splitNames = new Map<string, readonly [prefix: string, local: string]>();
  const relPaths = new Map<string, Map<string, string>>();
  let cachedPaths = 0;
  parser.on('opentag', (tag: SaxesTag) => {
    let split = splitNames.get(tag.name);
    if (!split) {
      const colon = tag.name.indexOf(':');
      split = colon < 0 ? ['', tag.name] : [tag.name.slice(0, colon), tag.name.slice(colon + 1)];
      if (splitNames.size < CACHED_NAMES) splitNames.set(tag.name, split);
    }
    const [tagPrefix, name] = split;
    if (!rootSeen) {
      rootSeen = true;
      prefix = tagPrefix;
      const ns = (tag.attributes as Record<string, string>)[prefix ? `xmlns:${prefix}` : 'xmlns'];
      if (name !== 'Document') fail('the root element is not Document');
      else if (ns !== NS) fail(`wrong namespace ${JSON.stringify(ns ?? null)}, expected ${NS}`);
    } else if (tagPrefix !== prefix && skipDepth < 0) {
      // Another namespace's element is never one of the message's own: skip its subtree.
      skipDepth = stack.length;
    }
    stack.push(name);
    const parentRel = rels[rels.length - 1] ?? '';
    text = '';
    if (skipDepth >= 0) {
      rels.push('');
      return;
    }
    const depth = stack.length;
    if (depth === 3 && stack[1] === 'BkToCstmrDbtCdtNtfctn' && name === 'Ntfctn') notifications++;
    if (depth === 4 && stack[1] === 'BkToCstmrDbtCdtNtfctn' && stack[2] === 'Ntfctn' && name === 'Ntry') {
      entryDepth = depth;
      entry = { texts: new Map(), currency: null, ustrd: [] };
      seenDetails.clear();
      rels.push('');
      return;
    }
    if (!entry || depth <= entryDepth) {
      rels.push('');
      return;
    }
    let children = relPaths.get(parentRel);
    let rel = children?.get(name);
    if (rel === undefined) {
      rel = parentRel ? `${parentRel}/${name}` : name;
      if (cachedPaths++ < CACHED_NAMES) {
        if (!children) relPaths.set(parentRel, (children = new Map()));
        children.set(name, rel);
      }
    }
    rels.push(rel);
    if (name === 'NtryDtls' || name === 'TxDtls') {
      if (seenDetails.has(rel)) {
        skipDepth = depth - 1;
        return;
      }
      seenDetails.add(rel);
    }
    if (rel === 'Amt') entry.currency = (tag.attributes as Record<string, string>).Ccy ?? null;
  });
  parser.on('text', (t) => {
    text += t;
  });
  parser.on('cdata', (t) => {
    text += t;
  });
  parser.on('closetag', () => {
    const depth = stack.length;
    const rel = rels.pop() ?? '';
    const value = text.trim();
    text = '';
    if (skipDepth >= 0) {
      stack.pop();
      if (stack.length <= skipDepth) skipDepth = -1;
      return;
    }
    if (entry && depth > entryDepth) {
      if (rel === 'NtryDtls/TxDtls/RmtInf/Ustrd') entry.ustrd.push(value);
      else if (!entry.texts.has(rel)) entry.texts.set(rel, value);
    } else if (entry && depth === entryDepth) {
      try {
        pending.push(entryOf(entry, `BkToCstmrDbtCdtNtfctn/Ntfctn[${notifications - 1}]/Ntry[${entryIndex}]`));
      } catch (err) {
        failure ??= err as Error;
      }
      entryIndex++;
      entry = null;
      entryDepth = -1;
    } else if (depth <= 6 && stack[1] === 'BkToCstmrDbtCdtNtfctn') {
      const path = stack.slice(1).join('/');
      if (path === 'BkToCstmrDbtCdtNtfctn/GrpHdr/MsgId') hdr.messageId = value;
      else if (path === 'BkToCstmrDbtCdtNtfctn/GrpHdr/CreDtTm') hdr.createdAt = value;
      else if (path === 'BkToCstmrDbtCdtNtfctn/Ntfctn/Acct/Id/IBAN' && notifications === 1 && hdr.accountIban === null) hdr.accountIban = value;
    }
    stack.pop();
  });

  const headerNow = (): Camt054Header => {
    if (header) return header;
    if (!hdr.messageId) throw new Iso20022ParseError(`${MESSAGE}: BkToCstmrDbtCdtNtfctn/GrpHdr/MsgId is missing`);
    if (!hdr.createdAt) throw new Iso20022ParseError(`${MESSAGE}: BkToCstmrDbtCdtNtfctn/GrpHdr/CreDtTm is missing`);
    header = { messageId: hdr.messageId, createdAt: hdr.createdAt, accountIban: hdr.accountIban };
    return header;
  };
  const flush = async (min: number) => {
    if (failure) throw failure;
    while (pending.length >= min && pending.length > 0) {
      const batch = pending.slice(0, batchSize);
      pending = pending.slice(batch.length);
      total += batch.length;
      await onEntries(headerNow(), batch);
    }
  };

  let bytes = 0;
  const feed = async (chunk: string) => {
    bytes += Buffer.byteLength(chunk, 'utf8');
    if (bytes > MAX_STREAMED_ISO20022_BYTES) throw new Iso20022ParseError(`${MESSAGE}: file is larger than ${MAX_STREAMED_ISO20022_BYTES} bytes`);
    parser.write(chunk);
    await flush(batchSize);
  };
  if (typeof xml === 'string') {
    for (let i = 0; i < xml.length; i += CHUNK_CHARS) await feed(xml.slice(i, i + CHUNK_CHARS));
  } else {
    const decoder = new TextDecoder('utf-8');
    for await (const chunk of xml) await feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    const rest = decoder.decode();
    if (rest) await feed(rest);
  }
  parser.close();
  if (failure) throw failure;
  if (!rootSeen) throw new Iso20022ParseError(`${MESSAGE}: the root element is not Document`);
  const h = headerNow();
  if (notifications === 0) throw new Iso20022ParseError(`${MESSAGE}: BkToCstmrDbtCdtNtfctn/Ntfctn is missing`);
  await flush(1);
  return { ...h, entries: total };
}
