/**
 * The chaos run's PostgreSQL failover (docs/chaos.md "PostgreSQL failover"), on the stack's
 * high-availability pair (tools/stack/ha-postgres.ts): the primary node SIGKILLed under traffic
 * (the machine dies: keeper, postmaster and backends at once), the standby promoted by
 * pg_auto_failover, the service measured until it is serving again, the killed node brought back
 * as the new standby; then the same the other way. The audit: every payout the API acknowledged
 * is in the database with its hold and postings, the sandbox and live ledgers each sum to zero, no
 * payment went to the bank twice, and each kill was followed by the service serving again within
 * {@link SERVING_AGAIN_LIMIT_MS}.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Db } from '../../src/db/schema';
import { coreIdempotencyKey } from '../../src/domain/idempotency-keys';
import type { Stack } from '../stack/index';
import { type Check, expectedPostings } from './audit';
import { replayLedger } from './ledger-replay';
import type { ChaosClient } from './client';
import type { FundRecord, TrafficLog } from './traffic';

/** The issue's bound: after a primary kill, a write through the API succeeds within this (ms). */
export const SERVING_AGAIN_LIMIT_MS = 30_000;
/** The primary kills of a run. */
export const PRIMARY_KILLS = 2;

/** One primary kill, as the fault log and the summary table show it. */
export interface PrimaryKill {
  /** Seconds into the run, as the fault log prints it. */
  at: string;
  killed: string;
  promoted: string | null;
  /** From the kill until the monitor reported the standby writable, ms (null: not promoted). */
  promotedMs: number | null;
  /** From the kill until the first write through the API succeeded, ms (null: not within the probe's limit). */
  servingAgainMs: number | null;
  /** From the kill until the killed node was the standby in steady state, ms (null: it was not). */
  rejoinedMs: number | null;
  error: string | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const secs = (ms: number | null) => (ms === null ? '-' : `${(ms / 1000).toFixed(1)} s`);

/**
 * "Serving again": a funding of 0.01 (POST /sandbox/fund, one Idempotency-Key for every try, tries
 * 200 ms apart, each given 10 s) sent from `since` until one is answered 200; returns the ms from
 * `since` to that answer, or null after `limitMs`. The funding is recorded in `traffic.funds`, so
 * the audit checks it was applied exactly once.
 */
export async function probeServingAgain(url: string, key: string, idem: string, since: number, traffic: TrafficLog, limitMs = 120_000): Promise<number | null> {
  const rec: FundRecord = { idem, amount: '0.01', status: 0 };
  traffic.funds.push(rec);
  while (Date.now() - since < limitMs) {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': idem },
        body: JSON.stringify({ amount: rec.amount }),
        signal: AbortSignal.timeout(10_000),
      });
      await res.text();
      rec.status = res.status;
      if (res.status === 200) return Date.now() - since;
    } catch {
      // no answer (connection cut, timeout): try again
    }
    await sleep(200);
  }
  return null;
}

/**
 * One primary kill under traffic: SIGKILL the primary, wait for the promotion and for the first
 * write through the API (probed from the kill on). Resolves then, with the record and `rejoined`,
 * which settles once the killed node is back as the standby (filling the record's `rejoinedMs`, or
 * its `error`). Never throws: what failed is in the record's `error`.
 */
export async function killPrimaryUnderTraffic(
  stack: Stack,
  owner: ChaosClient,
  idem: string,
  traffic: TrafficLog,
  at: () => string,
): Promise<{ kill: PrimaryKill; rejoined: Promise<void> }> {
  let f;
  try {
    f = await stack.killPostgresPrimary();
  } catch (err) {
    const k = { at: at(), killed: '-', promoted: null, promotedMs: null, servingAgainMs: null, rejoinedMs: null, error: String((err as Error).message ?? err).slice(0, 300) };
    return { kill: k, rejoined: Promise.resolve() };
  }
  const [promotion, servingAgainMs] = await Promise.all([
    f.promoted.then(
      (p) => ({ ...p, error: null }),
      (err: Error) => ({ node: null, ms: null, error: err.message.slice(0, 300) }),
    ),
    probeServingAgain(`${stack.url}/sandbox/v1/sandbox/fund`, owner.key, idem, f.killedAt, traffic),
  ]);
  const k: PrimaryKill = { at: at(), killed: f.killed, promoted: promotion.node, promotedMs: promotion.ms, servingAgainMs, rejoinedMs: null, error: promotion.error };
  const rejoined = f.rejoined.then(
    (ms) => {
      k.rejoinedMs = ms;
    },
    (err: Error) => {
      k.error ??= `the killed node did not rejoin: ${String(err.message ?? err).slice(0, 300)}`;
    },
  );
  return { kill: k, rejoined };
}

/** The fault log's line for a kill (the rejoin has its own line, {@link describeRejoin}). */
export function describeKill(k: PrimaryKill): string {
  if (k.error && k.killed === '-') return `PostgreSQL primary NOT killed: ${k.error}`;
  return (
    `PostgreSQL primary ${k.killed} SIGKILLed: ${k.promoted ? `${k.promoted} promoted in ${secs(k.promotedMs)}` : 'NO standby promoted'}, ` +
    `serving again (first write through the API) ${k.servingAgainMs === null ? 'NOT within the probe' : `in ${secs(k.servingAgainMs)}`} (times from the kill)${k.error ? `; ${k.error}` : ''}`
  );
}

/** The fault log's line once the killed node is back (or not). */
export function describeRejoin(k: PrimaryKill): string {
  return k.rejoinedMs === null ? `PostgreSQL ${k.killed} NOT back as the standby: ${k.error ?? ''}` : `PostgreSQL ${k.killed} back as the standby ${secs(k.rejoinedMs)} after its kill`;
}

/** The summary table's row. */
export function killsSummary(kills: PrimaryKill[]): [string, string] {
  return [
    'PostgreSQL primaries SIGKILLed (promoted in / serving again in / old primary back as standby in)',
    `${kills.length}${kills.length ? ` (${kills.map((k) => `${secs(k.promotedMs)} / ${secs(k.servingAgainMs)} / ${secs(k.rejoinedMs)}`).join('; ')})` : ''}`,
  ];
}

/**
 * The failover's audit rows: the kills themselves, every acknowledged payout with its hold and
 * postings, the two ledgers at zero, no payment at the bank twice (`bankFilesDir`: the test bank's
 * files, when it ran).
 */
export async function auditPgFailover(opts: { db: Db; businessId: string; traffic: TrafficLog; kills: PrimaryKill[]; bankFilesDir: string | null }): Promise<Check[]> {
  const { db, traffic, kills } = opts;
  const checks: Check[] = [];
  const within = kills.filter((k) => !k.error && k.promoted !== null && k.servingAgainMs !== null && k.servingAgainMs <= SERVING_AGAIN_LIMIT_MS && k.rejoinedMs !== null);
  checks.push({
    name: `PostgreSQL failover: ${PRIMARY_KILLS} primary kills, each promoted, serving again within ${SERVING_AGAIN_LIMIT_MS / 1000} s, the old primary back as standby`,
    ok: kills.length === PRIMARY_KILLS && within.length === PRIMARY_KILLS,
    detail: `${kills.length} kills, ${within.length} within the bound [${kills.map((k) => `${describeKill(k)}, ${describeRejoin(k)}`).join('; ')}]`,
  });

  // Every acknowledged payout (a 201 and its Idempotency-Key): its row, its hold, the postings of its state.
  const payouts = await db.selectFrom('payouts').select(['id', 'status', 'idempotency_key', 'disbursement_item_id']).where('business_id', '=', opts.businessId).execute();
  const byKey = new Map<string, typeof payouts>();
  for (const p of payouts) if (p.idempotency_key) byKey.set(p.idempotency_key, [...(byKey.get(p.idempotency_key) ?? []), p]);
  const keys = await db.selectFrom('ledger_postings').select('key').where('business_id', '=', opts.businessId).where('key', 'like', 'payout:%').execute();
  const postingsOf = new Map<string, string[]>();
  for (const { key } of keys) {
    const m = /^payout:([^:]+):(\w+)$/.exec(key);
    if (m) postingsOf.set(m[1]!, [...(postingsOf.get(m[1]!) ?? []), m[2]!]);
  }
  const acked = traffic.payouts.filter((r) => r.status === 201);
  const lost: string[] = [];
  const noHold: string[] = [];
  const wrongPostings: string[] = [];
  for (const r of acked) {
    const rows = byKey.get(coreIdempotencyKey(r.kind === 'guide' ? 'C' : 'A', r.idem)) ?? [];
    const id = [...r.ids][0];
    const row = rows.find((p) => p.id === id);
    if (rows.length !== 1 || !row) {
      lost.push(`${r.idem} (acknowledged as ${id ?? '?'}; ${rows.length} rows)`);
      continue;
    }
    const got = (postingsOf.get(row.id) ?? []).sort();
    if (!got.includes('hold')) noHold.push(row.id);
    const want = expectedPostings(row.status, !!row.disbursement_item_id).sort();
    if (want.join(',') !== got.join(',')) wrongPostings.push(`${row.id} ${row.status}: ${got.join(',') || 'none'} (want ${want.join(',')})`);
  }
  checks.push({
    name: 'failover: every payout the API acknowledged (201 and its Idempotency-Key) is there, with its hold and postings',
    ok: lost.length === 0 && noHold.length === 0 && wrongPostings.length === 0,
    detail: `${acked.length} acknowledged; ${lost.length} missing [${lost.slice(0, 3).join('; ')}], ${noHold.length} without their hold [${noHold.slice(0, 3).join('; ')}], ${wrongPostings.length} with other postings than their state's [${wrongPostings.slice(0, 3).join('; ')}]`,
  });

  // Both ledgers (src/core/ledger.ts: one per environment) sum to zero over every account, and the balances agree.
  const replay = await replayLedger(db);
  const sums = ['sandbox', 'live'].map((environment) => {
    let total = 0n;
    for (const [ledger, a] of replay.accounts) if (ledger.endsWith(`/${environment}`)) for (const v of Object.values(a)) total += v;
    const postings = replay.postings.filter((p) => p.environment === environment).length;
    const balancesOff = new Set(replay.balancesOff.filter((o) => o.environment === environment).map((o) => o.ledger)).size;
    return { environment, postings, total, balancesOff };
  });
  const ledgerOk = sums.every((r) => r.total === 0n && r.balancesOff === 0);
  checks.push({
    name: 'failover: the sandbox and the live ledger each sum to zero, balances = postings',
    ok: ledgerOk,
    detail: sums.map((r) => `${r.environment}: ${r.postings} postings summing to ${r.total}, ${r.balancesOff} balance rows off`).join('; '),
  });

  // Nothing went out twice: no payout paid twice (settled twice, or two live instructions of one
  // attempt), no bank file uploaded twice, no payment in two files the bank took.
  const settledTwice = await sql<{ n: string }>`
    select count(*)::text as n from (select 1 from ledger_postings where key like 'payout:%:settle' group by business_id, environment, key having count(*) > 1) d`.execute(db);
  const files = await db.selectFrom('rail_files').select(['name', 'sha256', 'rail']).where('direction', '=', 'outbound').where('status', '=', 'uploaded').execute();
  const sameContent = files.length - new Set(files.map((f) => f.sha256 ?? f.name)).size;
  const instructions = await db.selectFrom('rail_instructions').select(['payout_id', 'attempt', 'rail', 'end_to_end_id', 'rail_file_id']).where('rail_file_id', 'is not', null).execute();
  let bankTwice: string[] = [];
  let bankFiles = 0;
  let unknownAtBank: string[] = [];
  if (opts.bankFilesDir) {
    // The files the bank took (tools/test-bank/bank.ts moves each answered upload to `answered/`).
    const taken: { name: string; text: string }[] = [];
    for (const dir of [join(opts.bankFilesDir, 'inbox', 'answered'), join(opts.bankFilesDir, 'ach', 'inbox', 'answered')]) {
      let names: string[] = [];
      try {
        names = readdirSync(dir);
      } catch {
        // no such directory: nothing taken on that rail
      }
      for (const name of names) taken.push({ name, text: readFileSync(join(dir, name), 'utf8') });
    }
    bankFiles = taken.length;
    const uploaded = new Set(files.map((f) => f.name));
    unknownAtBank = taken.filter((t) => !uploaded.has(t.name)).map((t) => t.name);
    // A SEPA payment by its <EndToEndId>; an ACH entry by the identification number src/rails/ach/file.ts writes.
    const idAtBank = (i: (typeof instructions)[number]) =>
      i.rail === 'ach' ? i.end_to_end_id.replace(/[^0-9A-Za-z]/g, '').slice(-15).toUpperCase() : `<EndToEndId>${i.end_to_end_id}</EndToEndId>`;
    bankTwice = instructions
      .filter((i) => taken.reduce((n, t) => n + (t.text.split(idAtBank(i)).length - 1), 0) > 1)
      .map((i) => `${i.payout_id}#${i.attempt} ${i.end_to_end_id}`);
  }
  checks.push({
    name: 'failover: no payout or bank file sent twice',
    ok: Number(settledTwice.rows[0]!.n) === 0 && sameContent === 0 && bankTwice.length === 0 && unknownAtBank.length === 0,
    detail:
      `${settledTwice.rows[0]!.n} payouts settled twice; ${files.length} bank files uploaded, ${sameContent} with the content of another; ` +
      (opts.bankFilesDir
        ? `the bank took ${bankFiles} files, ${unknownAtBank.length} the database does not know [${unknownAtBank.slice(0, 3).join(', ')}], ${bankTwice.length} of ${instructions.length} payments in two of them [${bankTwice.slice(0, 3).join('; ')}]`
        : 'no test bank (--no-live)'),
  });
  return checks;
}
