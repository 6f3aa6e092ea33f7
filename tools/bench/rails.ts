/**
 * `npm run bench -- --rails [--entries N]` (docs/benchmarks.md "Bank files at scale"): bank files
 * of 10,000 payments, each phase in a child process of its own so its peak memory (`maxRSS` of
 * `process.resourceUsage()`) is its own, beside floors measured in the same run:
 *
 * 1. pain001: a 10,000-payout pain.001 composed by the sepa_eur module (written, validated against
 *    the official XSD with libxml2 in WebAssembly, SEPA rules), then uploaded to the test bank's
 *    OpenSSH server; floor: Debian's `xmllint --noout --schema` (libxml2) on the same file, its
 *    peak memory from `getrusage(RUSAGE_CHILDREN)`;
 * 2. nacha: a 10,000-entry NACHA file composed by the ACH module (written and read back), uploaded;
 * 3. camt054: the test bank's camt.054 answering that pain.001 (10,000 booked debits), listed,
 *    downloaded, streamed, matched to the 10,000 instructions in PostgreSQL (a throwaway cluster,
 *    tools/stack/postgres.ts, as `npm run bench` uses) and recorded as rail events
 *    (the dispatch queue) with the instructions advanced; floor: a bare streamed parse of the same
 *    file with the same parser (`saxes`), no matching;
 * 4. returns: the test bank's return file answering that NACHA file (10,000 R03 returns), read,
 *    matched by trace number and recorded the same way; floor: a bare parse of the same file.
 *
 * Each JavaScript phase first does a small piece of the same work, not measured (a warm-up, as a
 * long-running worker is warm; docs/benchmarks.md "Warm-up"): a 200-payout pain.001, the first
 * 256 KiB of the camt.054 (reader and floor alike).
 *
 * "Dispatch" here is everything up to the durable queue `dispatchRailEvents` drains (rail_events
 * rows, each matched to its payout attempt, instructions advanced); the Temporal signals that follow
 * are workflow throughput, measured by the rest of `npm run bench`.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { composeIBAN } from 'ibantools';
import pg from 'pg';
import { SaxesParser } from 'saxes';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/core/logging';
import type { Core } from '../../src/core/context';
import { railHost } from '../../src/core/rails/host';
import { migrate, openDb } from '../../src/db/connection';
import type { InstructionRow } from '../../src/core/rails/instructions';
import { instructionRecord } from '../../src/core/rails/records';
import { ACH_RAIL, achRailConfig } from '../../src/rails/ach/config';
import { composeAchFile } from '../../src/rails/ach/file';
import { achRailModule } from '../../src/rails/ach/module';
import { MAX_STREAMED_ISO20022_BYTES, streamCamt054 } from '../../src/rails/iso20022/camt054-stream';
import { loadSchema, PINNED_SCHEMAS, schemaDir } from '../../src/rails/iso20022/schemas';
import { parseNachaFile } from '../../src/rails/nacha';
import { sepaEndToEndId, sepaUetr } from '../../src/rails/sepa/adapter';
import { SEPA_RAIL, sepaRailConfig } from '../../src/rails/sepa/config';
import { composeSepaFile, sepaRailModule } from '../../src/rails/sepa/module';
import { SftpTransport } from '../../src/rails/sftp/transport';
import { ACH_BANK_ROUTING, answerNacha } from '../../tools/test-bank/ach-answers';
import { answerPain001 } from '../../tools/test-bank/answers';
import { TEST_BANK_ACH_COMPANY_ID, TEST_BANK_DEBTOR } from '../../tools/test-bank/bank';
import { startTestSftpServer, type TestSftpServer } from '../../tools/test-bank/sshd';
import { startPostgres } from '../stack/postgres';
import { sandboxAdapters } from '../../src/sandbox/adapters';
import { createScreeningServices } from '../../src/core/screening/service';

/** The figures of one phase: its seconds (the measured step), its process's peak RSS, and details. */
export interface RailPhaseResult {
  phase: string;
  seconds: number;
  maxRssMiB: number;
  detail: Record<string, number | string>;
}

/** Peak memory every phase must stay under (docs/benchmarks.md "Bank files at scale"). */
export const RAILS_MAX_RSS_MIB = 512;

/** The magic account number of the test bank that answers each entry with an R03 return at once. */
const ACH_RETURN_ACCOUNT = '9990000103';

/** Characters of the camt.054 both its reader and its floor parse first, not measured (a warm-up). */
const WARM_CHARS = 256 * 1024;

const since = (t: number) => (performance.now() - t) / 1000;
const peakMiB = () => Math.round(process.resourceUsage().maxRSS / 1024);

/** The RAIL_SEPA_* and RAIL_ACH_* environment of the test bank's SFTP server (as tools/test-bank/bank.ts gives it). */
function bankEnv(server: Pick<TestSftpServer, 'host' | 'port' | 'username' | 'privateKeyPath' | 'hostKeySha256'>): Record<string, string> {
  const sftp = (rail: 'SEPA' | 'ACH') => ({
    [`RAIL_${rail}_SFTP_HOST`]: server.host,
    [`RAIL_${rail}_SFTP_PORT`]: String(server.port),
    [`RAIL_${rail}_SFTP_USER`]: server.username,
    [`RAIL_${rail}_SFTP_KEY_PATH`]: server.privateKeyPath,
    [`RAIL_${rail}_SFTP_HOST_KEY`]: server.hostKeySha256,
  });
  return {
    ...sftp('SEPA'),
    RAIL_SEPA_UPLOAD_DIR: 'inbox',
    RAIL_SEPA_DOWNLOAD_DIR: 'outbox',
    RAIL_SEPA_DEBTOR_NAME: TEST_BANK_DEBTOR.name,
    RAIL_SEPA_DEBTOR_IBAN: TEST_BANK_DEBTOR.iban,
    RAIL_SEPA_DEBTOR_BIC: TEST_BANK_DEBTOR.bic,
    ...sftp('ACH'),
    RAIL_ACH_UPLOAD_DIR: 'ach/inbox',
    RAIL_ACH_DOWNLOAD_DIR: 'ach/outbox',
    RAIL_ACH_ODFI_ROUTING: ACH_BANK_ROUTING,
    RAIL_ACH_ODFI_NAME: 'TEST BANK',
    RAIL_ACH_COMPANY_ID: TEST_BANK_ACH_COMPANY_ID,
    RAIL_ACH_COMPANY_NAME: 'PAYOUTS PLATFORM',
  };
}

const NOW = new Date('2026-11-25T09:00:00Z');

function row(i: number, rail: string): InstructionRow {
  const payoutId = `po_${rail === SEPA_RAIL ? 'sepa' : 'ach'}bench${String(i).padStart(8, '0')}`;
  return {
    payout_id: payoutId,
    attempt: 1,
    rail,
    business_id: 'biz_bench',
    end_to_end_id: sepaEndToEndId(payoutId, 1),
    uetr: rail === SEPA_RAIL ? sepaUetr(payoutId, 1) : null,
    trace_number: null,
    details: null,
    amount_minor: BigInt(100 + (i % 50_000)),
    currency: rail === SEPA_RAIL ? 'EUR' : 'USD',
    creditor_name: `Recipient ${i}`,
    creditor_iban: null,
    creditor_bic: null,
    remittance: `Invoice ${i}`,
    status: 'queued',
    rail_file_id: null,
    payment_information_id: null,
    created_at: NOW,
    updated_at: NOW,
  };
}

/** `n` queued sepa_eur instructions (valid German IBANs), the same in every phase. */
export function sepaBenchRows(n: number): InstructionRow[] {
  return Array.from({ length: n }, (_, i) => ({
    ...row(i, SEPA_RAIL),
    creditor_iban: composeIBAN({ countryCode: 'DE', bban: `37040044${String(i).padStart(10, '0')}` })!,
    creditor_bic: 'COBADEFFXXX',
  }));
}

/** `n` queued ACH instructions to the test bank's R03 account, trace numbers 1..n, the same in every phase. */
export function achBenchRows(n: number): InstructionRow[] {
  return Array.from({ length: n }, (_, i) => ({
    ...row(i, ACH_RAIL),
    trace_number: `${ACH_BANK_ROUTING.slice(0, 8)}${String(i + 1).padStart(7, '0')}`,
    details: { routing_number: ACH_BANK_ROUTING, account_number: ACH_RETURN_ACCOUNT, account_type: 'checking', sec_code: 'PPD' },
  }));
}

/** A core over a new database of the bench's PostgreSQL holding `rows` as instructions of uploaded file `fileId` (setup, not measured). */
async function coreWith(env: Record<string, string>, rows: InstructionRow[], fileId: string, rail: string): Promise<Core> {
  const admin = new pg.Client({ connectionString: env.BENCH_DATABASE_URL });
  await admin.connect();
  const name = `bench_${rail}`;
  await admin.query(`drop database if exists ${name}`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(env.BENCH_DATABASE_URL!);
  url.pathname = `/${name}`;
  const db = await openDb({ url: url.toString() }, { poolSize: 4 });
  await migrate(db);
  await db
    .insertInto('rail_files')
    .values({
      id: fileId, rail, direction: 'outbound', name: `${fileId}.out`, message_id: fileId.replace('_', '-'), kind: 'bench', status: 'uploaded', sha256: null, bytes: 0, content: null,
      transactions: rows.length, control_sum_minor: null, execution_date: '2026-11-25', window_key: null, settlement_window: null,
      settles_at: new Date(NOW.getTime() + 30 * 86_400_000), settled_at: null, error: null, created_at: NOW, updated_at: NOW,
    })
    .execute();
  for (let i = 0; i < rows.length; i += 1000) {
    await db.insertInto('rail_instructions').values(rows.slice(i, i + 1000).map((r) => ({ ...r, details: r.details ? JSON.stringify(r.details) : null, status: 'in_file' as const, rail_file_id: fileId }))).execute();
  }
  const config = loadConfig({ ...process.env, ...env });
  return { db, temporal: undefined as never, config, log: createLogger({ level: 'silent' }), now: () => new Date(), sandbox: sandboxAdapters(), screening: createScreeningServices(db, config) };
}

/** Runs one phase in this process (a child of {@link runRailsBench}); `dir` holds the run's files. */
async function phase(name: string, dir: string, n: number): Promise<RailPhaseResult> {
  const env = JSON.parse(readFileSync(join(dir, 'env.json'), 'utf8')) as Record<string, string>;
  const config = loadConfig({ ...process.env, ...env });
  const log = createLogger({ level: 'silent' });
  if (name === 'pain001') {
    const sepa = sepaRailConfig(config).config!;
    // Warm-up (as a long-running worker is): one small file first, not measured.
    await composeSepaFile(sepa, sepaBenchRows(200).map(instructionRecord), NOW, 'rf_benchwarm', log);
    const rows = sepaBenchRows(n).map(instructionRecord);
    const t = performance.now();
    const file = await composeSepaFile(sepa, rows, NOW, 'rf_benchsepa', log);
    const seconds = since(t);
    writeFileSync(join(dir, 'pain001.xml'), file.content);
    const u = performance.now();
    const sftp = new SftpTransport(sepa.sftp);
    const result = await sftp.upload(sepa.uploadDir, file.name, Buffer.from(file.content, 'utf8'));
    await sftp.close();
    return { phase: name, seconds, maxRssMiB: peakMiB(), detail: { uploadSeconds: since(u), bytes: Buffer.byteLength(file.content), name: file.name, result } };
  }
  if (name === 'nacha') {
    const ach = achRailConfig(config).config!;
    const rows = achBenchRows(n).map(instructionRecord);
    const t = performance.now();
    const file = composeAchFile(ach, rows, NOW, 'rf_benchach');
    const seconds = since(t);
    writeFileSync(join(dir, 'upload.ach'), file.content);
    const u = performance.now();
    const sftp = new SftpTransport(ach.sftp);
    const result = await sftp.upload(ach.uploadDir, file.name, Buffer.from(file.content, 'utf8'));
    await sftp.close();
    return { phase: name, seconds, maxRssMiB: peakMiB(), detail: { uploadSeconds: since(u), bytes: Buffer.byteLength(file.content), name: file.name, result } };
  }
  if (name === 'camt054' || name === 'returns') {
    const sepa = name === 'camt054';
    const rail = sepa ? SEPA_RAIL : ACH_RAIL;
    const core = await coreWith(env, sepa ? sepaBenchRows(n) : achBenchRows(n), sepa ? 'rf_benchsepa' : 'rf_benchach', rail);
    const configured = (sepa ? sepaRailModule : achRailModule).connect(core.config).rail!;
    const host = railHost(core, rail);
    if (sepa) {
      const head = readFileSync(join(dir, 'camt054.xml'), 'utf8').slice(0, WARM_CHARS);
      await streamCamt054(`${head.slice(0, head.lastIndexOf('<Ntry>'))}</Ntfctn></BkToCstmrDbtCdtNtfctn></Document>`, async () => undefined);
    }
    const connection = sepa ? sepaRailConfig(core.config).config! : achRailConfig(core.config).config!;
    // The SFTP side (listed, downloaded, recorded once by name), then the read measured against the floor.
    const d = performance.now();
    const sftp = new SftpTransport(connection.sftp);
    const [listed] = await sftp.list(connection.downloadDir);
    const content = await sftp.download(connection.downloadDir, listed!.name, MAX_STREAMED_ISO20022_BYTES);
    await sftp.close();
    const file = await host.store.recordInboundFile(rail, listed!.name, content);
    const downloadSeconds = since(d);
    const t = performance.now();
    const polled = await configured.readInboundFile!(host, file, listed!.modifiedAt);
    const seconds = since(t);
    const counts = await core.db
      .selectFrom('rail_events')
      .select((eb) => [eb.fn.countAll<string>().as('events'), eb.fn.count<string>('payout_id').as('matched'), eb.fn.count<string>(eb.fn('distinct', ['payout_id'])).as('payouts')])
      .executeTakeFirstOrThrow();
    const advanced = await core.db.selectFrom('rail_instructions').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '!=', 'in_file').executeTakeFirstOrThrow();
    await core.db.destroy();
    return {
      phase: name,
      seconds,
      maxRssMiB: peakMiB(),
      detail: { downloadSeconds, bytes: content.length, events: Number(counts.events), matched: Number(counts.matched), payouts: Number(counts.payouts), advanced: Number(advanced.n), quarantined: String(polled.quarantined) },
    };
  }
  if (name === 'camt054-parse') {
    const xml = readFileSync(join(dir, 'camt054.xml'), 'utf8');
    const bare = (text: string) => {
      const parser = new SaxesParser({ position: false });
      let elements = 0;
      parser.on('opentag', () => {
        elements++;
      });
      parser.on('error', () => undefined);
      for (let i = 0; i < text.length; i += 64 * 1024) parser.write(text.slice(i, i + 64 * 1024));
      parser.close();
      return elements;
    };
    bare(xml.slice(0, WARM_CHARS));
    const t = performance.now();
    const elements = bare(xml);
    return { phase: name, seconds: since(t), maxRssMiB: peakMiB(), detail: { elements, bytes: Buffer.byteLength(xml) } };
  }
  if (name === 'returns-parse') {
    const text = readFileSync(join(dir, 'returns.ach'), 'utf8');
    const t = performance.now();
    const parsed = parseNachaFile(text);
    return { phase: name, seconds: since(t), maxRssMiB: peakMiB(), detail: { entries: parsed.batches.reduce((s, b) => s + b.entries.length, 0), bytes: text.length } };
  }
  throw new Error(`unknown phase ${name}`);
}

/** Runs phase `name` in a child process and returns its figures (throws when it fails). */
function child(name: string, dir: string, n: number): Promise<RailPhaseResult> {
  return new Promise((resolve, reject) => {
    // STACK_CPU_PROF_DIR profiles each phase's process (written when it exits).
    const profile = process.env.STACK_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.STACK_CPU_PROF_DIR}`, '--cpu-prof-name', `${name}.cpuprofile`] : [];
    const p = spawn(process.execPath, [...profile, '--import', 'tsx', 'tools/bench/rails.ts', name, dir, String(n)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('error', reject);
    p.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || !line) reject(new Error(`phase ${name} exited ${code}: ${out.slice(-2000)}`));
      else resolve(JSON.parse(line.slice(7)) as RailPhaseResult);
    });
  });
}

/** `xmllint --noout --schema <xsd> <file>`: its wall time and peak RSS (python's getrusage of its child). */
function xmllint(xsd: string, file: string): Promise<RailPhaseResult> {
  const script = 'import resource,subprocess,sys,time\nt=time.perf_counter()\nr=subprocess.run(sys.argv[1:],capture_output=True,text=True)\nprint("RESULT",time.perf_counter()-t,resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,r.returncode,r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "")';
  return new Promise((resolve, reject) => {
    const p = spawn('python3', ['-c', script, 'xmllint', '--noout', '--schema', xsd, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('error', reject);
    p.on('exit', () => {
      const m = /^RESULT (\S+) (\d+) (\d+) (.*)$/m.exec(out);
      if (!m) return reject(new Error(`xmllint did not run: ${out}`));
      if (m[3] !== '0') return reject(new Error(`xmllint refused the pain.001: ${m[4]}`));
      resolve({ phase: 'xmllint', seconds: Number(m[1]), maxRssMiB: Math.round(Number(m[2]) / 1024), detail: { said: m[4]! } });
    });
  });
}

/** Runs the rails bench (see the file header) with `entries` payments per file; prints a table and, with `json`, one JSON line. Returns the results. */
export async function runRailsBench(opts: { entries?: number; json?: boolean } = {}): Promise<RailPhaseResult[]> {
  const n = opts.entries ?? 10_000;
  const dir = mkdtempSync(join(tmpdir(), 'bench-rails-'));
  const say = (line: string) => console.log(line);
  const server = await startTestSftpServer({ dir: join(dir, 'bank') });
  const postgres = await startPostgres().catch(async (err) => {
    await server.stop();
    throw err;
  });
  try {
    for (const d of ['inbox', 'outbox', 'ach/inbox', 'ach/outbox']) mkdirSync(join(server.root, d), { recursive: true });
    writeFileSync(join(dir, 'env.json'), JSON.stringify({ ...bankEnv(server), BENCH_DATABASE_URL: postgres.url }));
    await loadSchema('pain.001.001.09');
    say(`rails bench: ${n} payments per file, each phase in its own process (Node ${process.versions.node})`);
    const results: RailPhaseResult[] = [];
    const run = async (p: Promise<RailPhaseResult>) => {
      const r = await p;
      results.push(r);
      say(`  ${r.phase.padEnd(14)} ${r.seconds.toFixed(3).padStart(8)} s  peak ${String(r.maxRssMiB).padStart(4)} MiB  ${JSON.stringify(r.detail)}`);
      return r;
    };
    const pain = await run(child('pain001', dir, n));
    const lint = await run(xmllint(join(schemaDir(), PINNED_SCHEMAS['pain.001.001.09'].file), join(dir, 'pain001.xml')));
    const nacha = await run(child('nacha', dir, n));

    // The test bank answers both uploads (not measured): a camt.054 of n booked debits, n R03 returns.
    const answers = await answerPain001(readFileSync(join(server.root, 'inbox', String(pain.detail.name)), 'utf8'), NOW);
    const camt = answers.find((f) => f.name.startsWith('camt054_'));
    if (!camt) throw new Error(`the test bank did not answer the pain.001 with a camt.054: ${answers.map((f) => f.name).join(', ')}`);
    writeFileSync(join(dir, 'camt054.xml'), camt.xml);
    writeFileSync(join(server.root, 'outbox', camt.name), camt.xml);
    const returns = answerNacha(readFileSync(join(server.root, 'ach', 'inbox', String(nacha.detail.name)), 'utf8'), String(nacha.detail.name), NOW).find((f) => f.when === 'now');
    if (!returns) throw new Error('the test bank did not answer the NACHA file with returns');
    writeFileSync(join(dir, 'returns.ach'), returns.text);
    writeFileSync(join(server.root, 'ach', 'outbox', returns.name), returns.text);

    const read = await run(child('camt054', dir, n));
    const bare = await run(child('camt054-parse', dir, n));
    const ret = await run(child('returns', dir, n));
    const retBare = await run(child('returns-parse', dir, n));

    const ratio = (a: RailPhaseResult, b: RailPhaseResult) => a.seconds / b.seconds;
    const peak = Math.max(...results.map((r) => r.maxRssMiB));
    const lines = [
      `pain.001 write+validate / xmllint --schema: ${ratio(pain, lint).toFixed(2)}x (target <= 3x)${ratio(pain, lint) <= 3 ? '' : '  MISSED'}`,
      `pain.001 upload over SFTP: ${Number(pain.detail.uploadSeconds).toFixed(3)} s for ${(Number(pain.detail.bytes) / 1048576).toFixed(1)} MiB`,
      `NACHA write+read back: ${nacha.seconds.toFixed(3)} s, upload ${Number(nacha.detail.uploadSeconds).toFixed(3)} s`,
      `camt.054 read+match+record / bare streamed parse: ${ratio(read, bare).toFixed(2)}x (target <= 5x)${ratio(read, bare) <= 5 ? '' : '  MISSED'}; ${read.detail.matched} of ${n} matched, ${read.detail.payouts} payouts`,
      `NACHA returns read+match+record / bare parse: ${ratio(ret, retBare).toFixed(2)}x (no target); ${ret.detail.matched} of ${n} matched`,
      `peak memory: ${peak} MiB at most (limit ${RAILS_MAX_RSS_MIB} MiB)${peak < RAILS_MAX_RSS_MIB ? '' : '  OVER'}`,
    ];
    say('');
    for (const l of lines) say(l);
    if (opts.json) console.log(JSON.stringify({ rails: results }));
    return results;
  } finally {
    postgres.stop();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [name, dir, n] = process.argv.slice(2);
  const main = name ? phase(name, dir!, Number(n)).then((r) => console.log(`RESULT ${JSON.stringify(r)}`)) : runRailsBench();
  main.then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
