/**
 * The test bank (docs/rails.md "Test bank"): a real OpenSSH SFTP server on loopback
 * (tools/test-bank/sshd.ts) and a bank that reads what the service uploads and answers in its
 * outbox, by the documented magic values of tools/test-bank/answers.ts. It works on the server's
 * own directory, as a bank's host-to-host gateway works on its own disk:
 *
 * - every `pain.001` that appears in `inbox/` (a `.part` is never read) is validated against the
 *   official XSD and answered with `pain.002` and `camt.054` files in `outbox/`, each written as
 *   `<name>.part` and renamed, so the service never lists half a file;
 * - the answered upload is moved to `inbox/answered/` (so `files:` shows what the bank took);
 * - `credit()` puts a camt.054 credit notification for a virtual IBAN in the outbox.
 *
 * It is also the ODFI of the ACH rail (docs/rails.md "ACH"), in its own directories on the same
 * server: every NACHA file that appears in `ach/inbox/` is parsed (a file that does not parse is
 * moved to `ach/inbox/rejected/`) and answered by the magic account numbers of
 * tools/test-bank/ach-answers.ts in `ach/outbox/`: returns and notifications of change at once,
 * late returns after `achLateReturnDelayMs` (default 10 s); `achCredit()` puts an incoming ACH
 * credit to a virtual account number in `ach/outbox/`.
 *
 * Verification of Payee (docs/payee-verification.md "Test bank"): every VoP request (a one-transaction
 * `pain.001`) that appears in `vop/inbox/` is answered at once with a `pain.002.001.14` VoP report in
 * `vop/outbox/` (by tools/test-bank/answers.ts `TEST_BANK_HOLDERS`), the request moved to `vop/inbox/answered/`.
 *
 * `settleAfterMs` delays the booking notifications (camt.054) after the status report, as a bank's
 * booking run follows its acceptance.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACH_BANK_ROUTING, type AchBankFile, answerNacha, incomingAchCredit, type IncomingAchCreditInput } from './ach-answers';
import { answerPain001, answerVopRequest, type BankFile, incomingCredit, type IncomingCreditInput } from './answers';
import { startTestSftpServer, type TestSftpServer } from './sshd';
import { type ClosedStatements, StatementBook, type StatementPlant } from './statements';

/** A running test bank. */
export interface TestBank {
  server: TestSftpServer;
  /** The RAIL_SEPA_* and RAIL_ACH_* environment that connects the service to this bank. */
  env: Record<string, string>;
  /** The directory that holds every file exchanged (`inbox/`, `inbox/answered/`, `outbox/`; VoP: `vop/inbox/`, `vop/outbox/`; ACH: `ach/inbox/`, `ach/inbox/answered/`, `ach/outbox/`). */
  filesDir: string;
  /** Puts a camt.054 credit notification in the outbox; returns its file name. */
  credit(input: Omit<IncomingCreditInput, 'now'>): string;
  /** Puts a NACHA file with one incoming ACH credit in `ach/outbox/`; returns its file name. */
  achCredit(input: Omit<IncomingAchCreditInput, 'now'>): string;
  /** Answers every upload waiting in the inbox now (the loop also does, every `pollMs`). */
  answerNow(): Promise<number>;
  /** Stops and starts the SFTP server (same port and host key). */
  restart(): Promise<void>;
  /**
   * Ends the statement period (tools/test-bank/statements.ts): writes the EUR account's camt.053 to
   * `outbox/` and the USD account's BAI2 to `ach/outbox/`, with the given planted breaks.
   */
  closeDay(plant?: { EUR?: StatementPlant; USD?: StatementPlant }): ClosedStatements;
  /** Cuts every open SFTP connection (the server keeps listening). */
  cutConnections(): Promise<void>;
  stop(): Promise<void>;
}

/** The settlement account the test bank holds for the platform (the pain.001 debtor). */
export const TEST_BANK_DEBTOR = { name: 'Payouts Platform GmbH', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' };
/** The range of IBANs the test bank assigns for live EUR virtual accounts. */
export const TEST_BANK_VIRTUAL_IBAN_RANGE = 'DE:370400440999';

/** The platform's company identification at the test bank (ACH batches; `1` + a 9-digit EIN). */
export const TEST_BANK_ACH_COMPANY_ID = '1463201458';
/** The leading digits of the account numbers the test bank assigns for live USD virtual accounts. */
export const TEST_BANK_ACH_ACCOUNT_PREFIX = '99988';

/** Writes `file` into `dir` as `<name>.part`, then renames it. */
function publishFile(dir: string, file: BankFile | AchBankFile): void {
  const part = join(dir, `${file.name}.part`);
  writeFileSync(part, 'xml' in file ? file.xml : file.text);
  renameSync(part, join(dir, file.name));
}

/**
 * Starts the test bank in state directory `dir`: the SFTP server and the answering loop (every
 * `pollMs`, default 200 ms). Throws when sshd is not installed.
 */
export async function startTestBank(opts: { dir: string; pollMs?: number; settleAfterMs?: number; achLateReturnDelayMs?: number }): Promise<TestBank> {
  const server = await startTestSftpServer({ dir: opts.dir });
  const inbox = join(server.root, 'inbox');
  const outbox = join(server.root, 'outbox');
  const answered = join(inbox, 'answered');
  mkdirSync(answered, { recursive: true });
  const achInbox = join(server.root, 'ach', 'inbox');
  const achOutbox = join(server.root, 'ach', 'outbox');
  mkdirSync(join(achInbox, 'answered'), { recursive: true });
  mkdirSync(join(achInbox, 'rejected'), { recursive: true });
  mkdirSync(achOutbox, { recursive: true });
  const vopInbox = join(server.root, 'vop', 'inbox');
  const vopOutbox = join(server.root, 'vop', 'outbox');
  mkdirSync(join(vopInbox, 'answered'), { recursive: true });
  mkdirSync(vopOutbox, { recursive: true });
  const later: Array<{ at: number; dir: string; file: BankFile | AchBankFile }> = [];
  // The settlement accounts' books: every file published moves them (statements.ts).
  const book = new StatementBook(TEST_BANK_DEBTOR.iban);
  const publish = (dir: string, file: BankFile | AchBankFile) => {
    publishFile(dir, file);
    try {
      book.observe(file);
    } catch (err) {
      console.error(`test bank: ${file.name} not booked on the statements: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  let busy: Promise<number> | null = null;

  const answerOnce = async (): Promise<number> => {
    const now = Date.now();
    for (const l of later.filter((x) => x.at <= now)) {
      publish(l.dir, l.file);
      later.splice(later.indexOf(l), 1);
    }
    let n = 0;
    for (const name of readdirSync(vopInbox).sort()) {
      if (!name.endsWith('.xml')) continue;
      const path = join(vopInbox, name);
      const report = await answerVopRequest(readFileSync(path, 'utf8'), new Date());
      if (report) publishFile(vopOutbox, report);
      renameSync(path, join(vopInbox, 'answered', name));
      n++;
    }
    for (const name of readdirSync(inbox).sort()) {
      if (name.endsWith('.part') || name === 'answered' || !name.endsWith('.xml')) continue;
      const path = join(inbox, name);
      const xml = readFileSync(path, 'utf8');
      const files = await answerPain001(xml, new Date());
      for (const f of files) {
        if (opts.settleAfterMs && f.name.startsWith('camt054_')) later.push({ at: Date.now() + opts.settleAfterMs, dir: outbox, file: f });
        else publish(outbox, f);
      }
      renameSync(path, join(answered, name));
      n++;
    }
    for (const name of readdirSync(achInbox).sort()) {
      if (!name.endsWith('.ach')) continue;
      const path = join(achInbox, name);
      let files: AchBankFile[];
      const text = readFileSync(path, 'utf8');
      try {
        files = answerNacha(text, name, new Date());
      } catch (err) {
        console.error(`test bank: NACHA file ${name} rejected: ${err instanceof Error ? err.message : String(err)}`);
        renameSync(path, join(achInbox, 'rejected', name));
        continue;
      }
      book.observeAchUpload(text);
      for (const f of files) {
        if (f.when === 'late') later.push({ at: Date.now() + (opts.achLateReturnDelayMs ?? 10_000), dir: achOutbox, file: f });
        else publish(achOutbox, f);
      }
      renameSync(path, join(achInbox, 'answered', name));
      n++;
    }
    return n;
  };
  const answerNow = () => {
    busy ??= answerOnce().finally(() => {
      busy = null;
    });
    return busy;
  };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await answerNow().catch((err) => console.error('test bank: answering failed', err));
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 200));
    }
  })();

  return {
    server,
    filesDir: server.root,
    env: {
      RAIL_SEPA_SFTP_HOST: server.host,
      RAIL_SEPA_SFTP_PORT: String(server.port),
      RAIL_SEPA_SFTP_USER: server.username,
      RAIL_SEPA_SFTP_KEY_PATH: server.privateKeyPath,
      RAIL_SEPA_SFTP_HOST_KEY: server.hostKeySha256,
      RAIL_SEPA_UPLOAD_DIR: 'inbox',
      RAIL_SEPA_DOWNLOAD_DIR: 'outbox',
      RAIL_SEPA_VOP_UPLOAD_DIR: 'vop/inbox',
      RAIL_SEPA_VOP_DOWNLOAD_DIR: 'vop/outbox',
      RAIL_SEPA_DEBTOR_NAME: TEST_BANK_DEBTOR.name,
      RAIL_SEPA_DEBTOR_IBAN: TEST_BANK_DEBTOR.iban,
      RAIL_SEPA_DEBTOR_BIC: TEST_BANK_DEBTOR.bic,
      RAIL_SEPA_VIRTUAL_IBAN_RANGE: TEST_BANK_VIRTUAL_IBAN_RANGE,
      RAIL_ACH_SFTP_HOST: server.host,
      RAIL_ACH_SFTP_PORT: String(server.port),
      RAIL_ACH_SFTP_USER: server.username,
      RAIL_ACH_SFTP_KEY_PATH: server.privateKeyPath,
      RAIL_ACH_SFTP_HOST_KEY: server.hostKeySha256,
      RAIL_ACH_UPLOAD_DIR: 'ach/inbox',
      RAIL_ACH_DOWNLOAD_DIR: 'ach/outbox',
      RAIL_ACH_ODFI_ROUTING: ACH_BANK_ROUTING,
      RAIL_ACH_ODFI_NAME: 'TEST BANK',
      RAIL_ACH_COMPANY_ID: TEST_BANK_ACH_COMPANY_ID,
      RAIL_ACH_COMPANY_NAME: 'PAYOUTS PLATFORM',
      RAIL_ACH_VIRTUAL_ACCOUNT_RANGE: `${ACH_BANK_ROUTING}:${TEST_BANK_ACH_ACCOUNT_PREFIX}`,
    },
    credit(input) {
      const file = incomingCredit({ ...input, now: new Date() });
      publish(outbox, file);
      return file.name;
    },
    achCredit(input) {
      const file = incomingAchCredit({ ...input, now: new Date() });
      publish(achOutbox, file);
      return file.name;
    },
    answerNow,
    closeDay(plant) {
      const closed = book.close(new Date(), plant);
      publishFile(outbox, { name: closed.camt053.name, xml: closed.camt053.xml });
      publishFile(achOutbox, { name: closed.bai2.name, text: closed.bai2.text, when: 'now' });
      return closed;
    },
    restart: () => server.restart(),
    cutConnections: () => server.cutConnections(),
    async stop() {
      stopped = true;
      await loop;
      for (const l of later.splice(0)) publish(l.dir, l.file);
      await server.stop();
    },
  };
}
