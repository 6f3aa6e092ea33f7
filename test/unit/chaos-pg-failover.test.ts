/**
 * The chaos run's PostgreSQL failover pieces (tools/chaos/pg-failover.ts, docs/chaos.md "Faults"):
 * the serving-again probe retries one funding under one Idempotency-Key until it is answered 200;
 * the failover audit fails on a kill without serving again within 30 s, on a balance that is not
 * its postings, and on a payment the bank took in two files or a file it took that we never recorded.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBusiness } from '../../src/core/businesses';
import { migrate, openDb } from '../../src/db/connection';
import type { Db } from '../../src/db/schema';
import { auditPgFailover, type PrimaryKill, probeServingAgain } from '../../tools/chaos/pg-failover';
import { newTrafficLog } from '../../tools/chaos/traffic';

const kill = (over: Partial<PrimaryKill> = {}): PrimaryKill => ({ at: '10.0 s', killed: 'node_a', promoted: 'node_b', promotedMs: 10_000, servingAgainMs: 11_000, rejoinedMs: 14_000, error: null, ...over });

describe('serving-again probe', () => {
  let server: Server;
  let url = '';
  const seen: { key: string | undefined; auth: string | undefined }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ key: req.headers['idempotency-key'] as string | undefined, auth: req.headers.authorization });
      // Unavailable for the first three tries (the failover), then served.
      res.writeHead(seen.length <= 3 ? 503 : 200, { 'Content-Type': 'application/json' }).end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/sandbox/v1/sandbox/fund`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('retries one funding under one key until it is answered 200, and records it for the audit', async () => {
    const traffic = newTrafficLog();
    const since = Date.now();
    const ms = await probeServingAgain(url, 'sk_test_x', 'probe-1', since, traffic, 10_000);
    expect(ms).not.toBeNull();
    expect(ms!).toBeGreaterThanOrEqual(3 * 200);
    expect(seen).toHaveLength(4);
    expect(new Set(seen.map((s) => s.key))).toEqual(new Set(['probe-1']));
    expect(seen[0]!.auth).toBe('Bearer sk_test_x');
    expect(traffic.funds).toEqual([{ idem: 'probe-1', amount: '0.01', status: 200 }]);
  });

  it('gives up with null when nothing answers within the limit', async () => {
    const traffic = newTrafficLog();
    const ms = await probeServingAgain('http://127.0.0.1:9/nothing', 'k', 'probe-2', Date.now(), traffic, 500);
    expect(ms).toBeNull();
    expect(traffic.funds[0]!.status).toBe(0);
  });
});

describe('failover audit', () => {
  let db: Db;
  let businessId = '';
  let bankDir = '';
  beforeAll(async () => {
    db = await openDb({ memory: true });
    await migrate(db);
    businessId = (await createBusiness(db, { name: 'Failover audit' })).businessId;
    bankDir = mkdtempSync(join(tmpdir(), 'chaos-pg-failover-'));
    mkdirSync(join(bankDir, 'inbox', 'answered'), { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await db.destroy();
    rmSync(bankDir, { recursive: true, force: true });
  });
  const run = (kills: PrimaryKill[]) => auditPgFailover({ db, businessId, traffic: newTrafficLog(), kills, bankFilesDir: bankDir });
  const row = async (kills: PrimaryKill[], prefix: string) => (await run(kills)).find((c) => c.name.startsWith(prefix))!;

  it('passes two kills each serving again within 30 s, and fails one too slow, one missing or one not promoted', async () => {
    expect((await row([kill(), kill({ killed: 'node_b', promoted: 'node_a' })], 'PostgreSQL failover')).ok).toBe(true);
    expect((await row([kill(), kill({ servingAgainMs: 31_000 })], 'PostgreSQL failover')).ok).toBe(false);
    expect((await row([kill()], 'PostgreSQL failover')).ok).toBe(false);
    expect((await row([kill(), kill({ promoted: null, promotedMs: null, error: 'no standby promoted' })], 'PostgreSQL failover')).ok).toBe(false);
    expect((await row([kill(), kill({ servingAgainMs: null })], 'PostgreSQL failover')).ok).toBe(false);
  });

  it('fails when a balance is not what its postings say', async () => {
    await sql`insert into ledger_postings (business_id, environment, key, currency, debit_account, credit_account, amount)
      values (${businessId}, 'sandbox', 'fund:idem:t1', 'USDC', 'external', 'available', 5000000)`.execute(db);
    // (the posting's trigger moved the balance: migration 0065)
    const ok = await row([], 'failover: the sandbox and the live ledger');
    expect(ok.ok).toBe(true);
    expect(ok.detail).toContain('sandbox: 1 postings summing to 0, 0 balance rows off');
    // A balance moved without its posting (the guard trigger off, as a lost posting would look).
    await sql`alter table balances disable trigger user`.execute(db);
    await sql`update balances set available = 4000000 where business_id = ${businessId} and environment = 'sandbox'`.execute(db);
    const off = await row([], 'failover: the sandbox and the live ledger');
    await sql`update balances set available = 5000000 where business_id = ${businessId} and environment = 'sandbox'`.execute(db);
    await sql`alter table balances enable trigger user`.execute(db);
    expect(off.ok).toBe(false);
    expect(off.detail).toContain('sandbox: 1 postings summing to 0, 1 balance rows off');
  });

  it('fails when the bank took one payment in two files, or a file we never recorded', async () => {
    const file = (name: string, e2e: string) =>
      writeFileSync(join(bankDir, 'inbox', 'answered', name), `<Document><CdtTrfTxInf><PmtId><EndToEndId>${e2e}</EndToEndId></PmtId></CdtTrfTxInf></Document>`);
    for (const [id, name] of [
      ['rf_1', 'pain001-1.xml'],
      ['rf_2', 'pain001-2.xml'],
    ]) {
      await sql`insert into rail_files (id, rail, direction, name, kind, status, sha256) values (${id}, 'sepa', 'outbound', ${name}, 'pain.001', 'uploaded', ${id})`.execute(db);
    }
    await sql`insert into rail_instructions (payout_id, attempt, rail, business_id, end_to_end_id, uetr, amount_minor, currency, creditor_name, creditor_iban, status, rail_file_id)
      values ('po_1', 1, 'sepa', ${businessId}, 'E2E-ONE', 'u-1', 100, 'EUR', 'Ana', 'DE89370400440532013000', 'settled', 'rf_1'),
             ('po_2', 1, 'sepa', ${businessId}, 'E2E-TWO', 'u-2', 100, 'EUR', 'Ana', 'DE89370400440532013000', 'settled', 'rf_2')`.execute(db);
    file('pain001-1.xml', 'E2E-ONE');
    file('pain001-2.xml', 'E2E-TWO');
    expect((await row([], 'failover: no payout or bank file sent twice')).ok).toBe(true);
    // The second file carries the first payment again: paid twice at the bank.
    file('pain001-2.xml', 'E2E-ONE');
    const twice = await row([], 'failover: no payout or bank file sent twice');
    expect(twice.ok).toBe(false);
    expect(twice.detail).toContain('1 of 2 payments in two of them [po_1#1 E2E-ONE]');
    file('pain001-2.xml', 'E2E-TWO');
    // A file at the bank the database does not know (an upload whose record was lost).
    file('pain001-3.xml', 'E2E-THREE');
    expect((await row([], 'failover: no payout or bank file sent twice')).detail).toContain('1 the database does not know [pain001-3.xml]');
  });
});
