/**
 * A BAI2 (version 2) statement parser (docs/treasury.md "BAI2"). Pure. Amounts are integer minor
 * units as decimal strings (BAI2 writes `12345` for 123.45); balances may be signed, transactions not.
 */

export class Bai2ParseError extends Error {
  override readonly name = 'Bai2ParseError';
}

export const MAX_BAI2_BYTES = 10 * 1024 * 1024;

export interface Bai2Transaction {
  /** Three digits (`466` ACH settlement debit, `142` ACH credit received, ...). */
  typeCode: string;
  /** From the type code's range. */
  creditDebit: 'CRDT' | 'DBIT';
  amountMinor: string;
  fundsType: string | null;
  bankReference: string | null;
  /** For an ACH entry, its trace number. */
  customerReference: string | null;
  text: string | null;
  line: number;
}

export interface Bai2Account {
  accountNumber: string;
  currency: string;
  /** By type code (`010` opening ledger, `015` closing ledger), signed minor units. */
  amounts: Record<string, string>;
  transactions: Bai2Transaction[];
  controlTotal: string;
  recordCount: number;
}

export interface Bai2Group {
  ultimateReceiverId: string;
  originatorId: string;
  groupStatus: string;
  asOfDate: string;
  /** `HH:MM` (`24:00`: end of day). */
  asOfTime: string | null;
  currency: string;
  asOfDateModifier: string | null;
  accounts: Bai2Account[];
}

export interface Bai2File {
  senderId: string;
  receiverId: string;
  createdDate: string;
  createdTime: string;
  fileId: string;
  groups: Bai2Group[];
}

interface RawRecord {
  code: string;
  fields: string[];
  line: number;
  physical: number;
}

function records(text: string): RawRecord[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: RawRecord[] = [];
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    const m = /^([0-9]{2}),(.*)$/.exec(line);
    if (!m) throw new Bai2ParseError(`line ${i + 1}: not a BAI2 record (a two-digit record code and a comma)`);
    const [, code, rest] = m;
    if (code === '88') {
      const prev = out[out.length - 1];
      if (!prev) throw new Bai2ParseError(`line ${i + 1}: a continuation (88) with no record before it`);
      const body = stripTerminator(rest, prev.code === '16');
      if (prev.code === '16') {
        const last = prev.fields.length - 1;
        prev.fields[last] = prev.fields[last] === '' ? body : `${prev.fields[last]} ${body}`;
      } else {
        // `015,/` then `88,497000/`: the record ended with a delimiter, the continuation fills that field.
        if (prev.fields.length > 1 && prev.fields[prev.fields.length - 1] === '') prev.fields.pop();
        prev.fields.push(...body.split(','));
      }
      prev.physical++;
      return;
    }
    if (code === '16') {
      // The text (the last field) may hold commas and slashes: split only the fields before it.
      out.push({ code, fields: splitDetail(rest, i + 1), line: i + 1, physical: 1 });
      return;
    }
    out.push({ code, fields: stripTerminator(rest, false).split(','), line: i + 1, physical: 1 });
  });
  return out;
}

function stripTerminator(body: string, text: boolean): string {
  if (text) return body.endsWith('/') ? body.slice(0, -1) : body;
  const slash = body.indexOf('/');
  return slash < 0 ? body : body.slice(0, slash);
}

function splitDetail(body: string, line: number): string[] {
  const parts = body.split(',');
  const ended = parts.findIndex((f, k) => k < 3 && f.includes('/'));
  if (ended >= 0) {
    const head = parts.slice(0, ended + 1).map((f) => stripTerminator(f, false));
    while (head.length < 3) head.push('');
    return [...head, '', '', ''];
  }
  const head = parts.slice(0, 3);
  if (head.length < 3) throw new Bai2ParseError(`line ${line}: record 16 has fewer than 3 fields`);
  const funds = head[2].trim().toUpperCase();
  let extra = 0;
  if (funds === 'S') extra = 3;
  else if (funds === 'V') extra = 2;
  else if (funds === 'D') {
    const n = Number(parts[3]);
    if (!/^[0-9]+$/.test(parts[3] ?? '')) throw new Bai2ParseError(`line ${line}: funds type D without a distribution count`);
    extra = 1 + 2 * n;
  }
  const avail = parts.slice(3, 3 + extra);
  const refs = parts.slice(3 + extra, 5 + extra);
  while (refs.length < 2) refs.push('');
  const text = parts.slice(5 + extra).join(',');
  return [...head, ...avail, ...refs.map((r) => stripTerminator(r, false)), stripTerminator(text, true)];
}

function date(value: string, line: number, what: string): string {
  const m = /^([0-9]{2})([0-9]{2})([0-9]{2})$/.exec(value);
  if (!m) throw new Bai2ParseError(`line ${line}: ${what} ${JSON.stringify(value)} is not YYMMDD`);
  const [, yy, mm, dd] = m;
  const iso = `20${yy}-${mm}-${dd}`;
  const d = new Date(`${iso}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== iso) throw new Bai2ParseError(`line ${line}: ${what} ${JSON.stringify(value)} is not a date`);
  return iso;
}

function time(value: string, line: number, what: string): string {
  if (value === '2400' || value === '9999') return '24:00';
  const m = /^([01][0-9]|2[0-3])([0-5][0-9])$/.exec(value);
  if (!m) throw new Bai2ParseError(`line ${line}: ${what} ${JSON.stringify(value)} is not HHMM`);
  return `${m[1]}:${m[2]}`;
}

function signed(value: string, line: number, what: string): bigint {
  if (!/^[+-]?[0-9]+$/.test(value)) throw new Bai2ParseError(`line ${line}: ${what} ${JSON.stringify(value)} is not an integer amount`);
  return BigInt(value);
}

function count(value: string, line: number, what: string): number {
  if (!/^[0-9]+$/.test(value)) throw new Bai2ParseError(`line ${line}: ${what} ${JSON.stringify(value)} is not a count`);
  return Number(value);
}

export function bai2CreditDebit(typeCode: string): 'CRDT' | 'DBIT' | null {
  const n = Number(typeCode);
  if ((n >= 100 && n <= 399) || (n >= 900 && n <= 959)) return 'CRDT';
  if ((n >= 400 && n <= 699) || (n >= 960 && n <= 999)) return 'DBIT';
  return null;
}

const CURRENCY = /^[A-Z]{3}$/;

/**
 * Parses a BAI2 file, checking record order, version, every field and every trailer's counts and
 * control totals. Throws {@link Bai2ParseError} naming the line (also over {@link MAX_BAI2_BYTES}).
 */
export function parseBai2(text: string): Bai2File {
  if (Buffer.byteLength(text, 'utf8') > MAX_BAI2_BYTES) throw new Bai2ParseError(`file is larger than ${MAX_BAI2_BYTES} bytes`);
  const recs = records(text);
  let i = 0;
  const peek = () => recs[i];
  const take = (code: string, what: string): RawRecord => {
    const r = recs[i];
    if (!r) throw new Bai2ParseError(`the file ends where ${what} (${code}) should be`);
    if (r.code !== code) throw new Bai2ParseError(`line ${r.line}: expected ${what} (${code}), found record ${r.code}`);
    i++;
    return r;
  };
  const field = (r: RawRecord, n: number) => (r.fields[n] ?? '').trim();

  const h = take('01', 'the file header');
  if (field(h, 7) !== '2') throw new Bai2ParseError(`line ${h.line}: version ${JSON.stringify(field(h, 7))} is not BAI2 version 2`);
  const file: Bai2File = {
    senderId: field(h, 0),
    receiverId: field(h, 1),
    createdDate: date(field(h, 2), h.line, 'creation date'),
    createdTime: time(field(h, 3), h.line, 'creation time'),
    fileId: field(h, 4),
    groups: [],
  };
  if (!file.senderId || !file.receiverId || !file.fileId) throw new Bai2ParseError(`line ${h.line}: sender, receiver and file id are required`);
  let fileRecords = h.physical;
  let fileTotal = 0n;
  while (peek()?.code === '02') {
    const g = take('02', 'a group header');
    let groupRecords = g.physical;
    let groupTotal = 0n;
    const currency = field(g, 5) || 'USD';
    if (!CURRENCY.test(currency)) throw new Bai2ParseError(`line ${g.line}: currency ${JSON.stringify(currency)} is not an ISO code`);
    const group: Bai2Group = {
      ultimateReceiverId: field(g, 0),
      originatorId: field(g, 1),
      groupStatus: field(g, 2),
      asOfDate: date(field(g, 3), g.line, 'as-of date'),
      asOfTime: field(g, 4) ? time(field(g, 4), g.line, 'as-of time') : null,
      currency,
      asOfDateModifier: field(g, 6) || null,
      accounts: [],
    };
    if (!['1', '2', '3', '4'].includes(group.groupStatus)) throw new Bai2ParseError(`line ${g.line}: group status ${JSON.stringify(group.groupStatus)} is not 1 to 4`);
    while (peek()?.code === '03') {
      const a = take('03', 'an account identifier');
      let accountRecords = a.physical;
      let accountTotal = 0n;
      const accountCurrency = field(a, 1) || currency;
      if (!CURRENCY.test(accountCurrency)) throw new Bai2ParseError(`line ${a.line}: currency ${JSON.stringify(accountCurrency)} is not an ISO code`);
      const amounts: Record<string, string> = {};
      let k = 2;
      while (k < a.fields.length) {
        const code = field(a, k);
        if (code === '' && a.fields.slice(k).every((f) => f.trim() === '')) break;
        if (!/^[0-9]{3}$/.test(code)) throw new Bai2ParseError(`line ${a.line}: type code ${JSON.stringify(code)} is not three digits`);
        const amount = field(a, k + 1);
        if (amount !== '') {
          const v = signed(amount, a.line, `amount of type ${code}`);
          amounts[code] = v.toString();
          accountTotal += v;
        }
        const funds = field(a, k + 3).toUpperCase();
        k += 4 + (funds === 'S' ? 3 : funds === 'V' ? 2 : funds === 'D' ? 1 + 2 * count(field(a, k + 4), a.line, 'distribution count') : 0);
      }
      const account: Bai2Account = { accountNumber: field(a, 0), currency: accountCurrency, amounts, transactions: [], controlTotal: '0', recordCount: 0 };
      if (!account.accountNumber) throw new Bai2ParseError(`line ${a.line}: the account number is missing`);
      while (peek()?.code === '16') {
        const t = take('16', 'a transaction detail');
        accountRecords += t.physical;
        const typeCode = field(t, 0);
        const creditDebit = /^[0-9]{3}$/.test(typeCode) ? bai2CreditDebit(typeCode) : null;
        if (!creditDebit) throw new Bai2ParseError(`line ${t.line}: type code ${JSON.stringify(typeCode)} is not a credit or debit detail code`);
        const amount = field(t, 1);
        if (!/^[0-9]+$/.test(amount)) throw new Bai2ParseError(`line ${t.line}: amount ${JSON.stringify(amount)} is not an unsigned integer amount`);
        const n = t.fields.length;
        const text = (t.fields[n - 1] ?? '').trim();
        account.transactions.push({
          typeCode,
          creditDebit,
          amountMinor: BigInt(amount).toString(),
          fundsType: field(t, 2) || null,
          bankReference: (t.fields[n - 3] ?? '').trim() || null,
          customerReference: (t.fields[n - 2] ?? '').trim() || null,
          text: text || null,
          line: t.line,
        });
        accountTotal += BigInt(amount);
      }
      const at = take('49', 'the account trailer');
      accountRecords += at.physical;
      const total = signed(field(at, 0), at.line, 'account control total');
      const n = count(field(at, 1), at.line, 'number of records');
      if (total !== accountTotal) throw new Bai2ParseError(`line ${at.line}: account control total ${total} is not the sum of the account's amounts ${accountTotal}`);
      if (n !== accountRecords) throw new Bai2ParseError(`line ${at.line}: number of records ${n} is not the account's ${accountRecords}`);
      account.controlTotal = total.toString();
      account.recordCount = n;
      group.accounts.push(account);
      groupRecords += accountRecords;
      groupTotal += total;
    }
    const gt = take('98', 'the group trailer');
    groupRecords += gt.physical;
    const total = signed(field(gt, 0), gt.line, 'group control total');
    if (total !== groupTotal) throw new Bai2ParseError(`line ${gt.line}: group control total ${total} is not the sum of its accounts' ${groupTotal}`);
    if (count(field(gt, 1), gt.line, 'number of accounts') !== group.accounts.length) throw new Bai2ParseError(`line ${gt.line}: number of accounts is not ${group.accounts.length}`);
    if (count(field(gt, 2), gt.line, 'number of records') !== groupRecords) throw new Bai2ParseError(`line ${gt.line}: number of records is not the group's ${groupRecords}`);
    file.groups.push(group);
    fileRecords += groupRecords;
    fileTotal += total;
  }
  const ft = take('99', 'the file trailer');
  fileRecords += ft.physical;
  const total = signed(field(ft, 0), ft.line, 'file control total');
  if (total !== fileTotal) throw new Bai2ParseError(`line ${ft.line}: file control total ${total} is not the sum of its groups' ${fileTotal}`);
  if (count(field(ft, 1), ft.line, 'number of groups') !== file.groups.length) throw new Bai2ParseError(`line ${ft.line}: number of groups is not ${file.groups.length}`);
  if (count(field(ft, 2), ft.line, 'number of records') !== fileRecords) throw new Bai2ParseError(`line ${ft.line}: number of records is not the file's ${fileRecords}`);
  if (i < recs.length) throw new Bai2ParseError(`line ${recs[i].line}: record ${recs[i].code} after the file trailer`);
  if (file.groups.length === 0) throw new Bai2ParseError('the file has no group');
  return file;
}
