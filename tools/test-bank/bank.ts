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
 * `settleAfterMs` delays the booking notifications (camt.054) after the status report, as a bank's
 * booking run follows its acceptance.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { answerPain001, type BankFile, incomingCredit, type IncomingCreditInput } from './answers';
import { startTestSftpServer, type TestSftpServer } from './sshd';

/** A running test bank. */
export interface TestBank {
  server: TestSftpServer;
  /** The RAIL_SEPA_* environment that connects the service to this bank. */
  env: Record<string, string>;
  /** The directory that holds every file exchanged (`inbox/`, `inbox/answered/`, `outbox/`). */
  filesDir: string;
  /** Puts a camt.054 credit notification in the outbox; returns its file name. */
  credit(input: Omit<IncomingCreditInput, 'now'>): string;
  /** Answers every upload waiting in the inbox now (the loop also does, every `pollMs`). */
  answerNow(): Promise<number>;
  /** Stops and starts the SFTP server (same port and host key). */
  restart(): Promise<void>;
  /** Cuts every open SFTP connection (the server keeps listening). */
  cutConnections(): Promise<void>;
  stop(): Promise<void>;
}

/** The settlement account the test bank holds for the platform (the pain.001 debtor). */
export const TEST_BANK_DEBTOR = { name: 'Payouts Platform GmbH', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' };
/** The range of IBANs the test bank assigns for live EUR virtual accounts. */
export const TEST_BANK_VIRTUAL_IBAN_RANGE = 'DE:370400440999';

/** Writes `file` into `dir` as `<name>.part`, then renames it. */
function publish(dir: string, file: BankFile): void {
  const part = join(dir, `${file.name}.part`);
  writeFileSync(part, file.xml);
  renameSync(part, join(dir, file.name));
}

/**
 * Starts the test bank in state directory `dir`: the SFTP server and the answering loop (every
 * `pollMs`, default 200 ms). Throws when sshd is not installed.
 */
export async function startTestBank(opts: { dir: string; pollMs?: number; settleAfterMs?: number }): Promise<TestBank> {
  const server = await startTestSftpServer({ dir: opts.dir });
  const inbox = join(server.root, 'inbox');
  const outbox = join(server.root, 'outbox');
  const answered = join(inbox, 'answered');
  mkdirSync(answered, { recursive: true });
  const later: Array<{ at: number; file: BankFile }> = [];
  let busy: Promise<number> | null = null;

  const answerOnce = async (): Promise<number> => {
    const now = Date.now();
    for (const l of later.filter((x) => x.at <= now)) {
      publish(outbox, l.file);
      later.splice(later.indexOf(l), 1);
    }
    let n = 0;
    for (const name of readdirSync(inbox).sort()) {
      if (name.endsWith('.part') || name === 'answered' || !name.endsWith('.xml')) continue;
      const path = join(inbox, name);
      const xml = readFileSync(path, 'utf8');
      const files = await answerPain001(xml, new Date());
      for (const f of files) {
        if (opts.settleAfterMs && f.name.startsWith('camt054_')) later.push({ at: Date.now() + opts.settleAfterMs, file: f });
        else publish(outbox, f);
      }
      renameSync(path, join(answered, name));
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
      RAIL_SEPA_DEBTOR_NAME: TEST_BANK_DEBTOR.name,
      RAIL_SEPA_DEBTOR_IBAN: TEST_BANK_DEBTOR.iban,
      RAIL_SEPA_DEBTOR_BIC: TEST_BANK_DEBTOR.bic,
      RAIL_SEPA_VIRTUAL_IBAN_RANGE: TEST_BANK_VIRTUAL_IBAN_RANGE,
    },
    credit(input) {
      const file = incomingCredit({ ...input, now: new Date() });
      publish(outbox, file);
      return file.name;
    },
    answerNow,
    restart: () => server.restart(),
    cutConnections: () => server.cutConnections(),
    async stop() {
      stopped = true;
      await loop;
      for (const l of later.splice(0)) publish(outbox, l.file);
      await server.stop();
    },
  };
}
