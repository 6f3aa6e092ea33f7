/**
 * `npm run chaos -- [--minutes N | --seconds N] [--seed S] [--clients C] [--dev-server] [--single-postgres] [--no-live]`
 * (docs/chaos.md). Starts the stack as production runs it (tools/stack: PostgreSQL as a
 * high-availability pair (pg_auto_failover: a primary and a synchronous standby;
 * `--single-postgres`: one server), a two-node Temporal cluster on it (`--dev-server`: the CLI's
 * dev server on SQLite, and one PostgreSQL server), two `npm run api` behind
 * a round-robin proxy, two `npm run worker`), drives seeded mixed Surface A traffic
 * (tools/chaos/traffic.ts) for the duration while killing things: a worker or an API process
 * SIGKILLed every few seconds and restarted; once, at 40 % of the run, one Temporal node SIGKILLed
 * and brought back (the dev server: restarted on the same SQLite file); on the HA pair, at 25 % and
 * again at 65 % of the run, the PostgreSQL primary SIGKILLed, the standby promoted, the service
 * timed until it serves again and the old primary brought back as the standby
 * (tools/chaos/pg-failover.ts; with `--single-postgres`, once at 65 %, the server stopped at once
 * (as a crash) and started again under everything); the webhook
 * receiver failing (503 or a dropped connection) for a fifth of the run. Unless `--no-live`, the
 * test bank runs too (tools/test-bank) and part of the traffic is live (tools/chaos/live.ts): live
 * sepa_eur payouts as pain.001 files over SFTP, live ach_usd payouts as NACHA files over SFTP
 * (settled by silence, returned, returned late) and live deposits as camt.054 credits, with the
 * bank's SFTP connections cut and its server restarted among the faults. Then waits for quiescence and audits
 * (tools/chaos/audit.ts), prints the table, and exits 1 if any check failed (2 if the stack could
 * not start). Default: 1 minute, seed 1.
 */
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { type ServiceProcess, startStack, type Stack } from '../stack/index';
import { audit, type Check } from './audit';
import { ChaosClient, newStats } from './client';
import { startReceiver } from './receiver';
import { Rng } from './rng';
import { fundLive, type LiveCredit, liveLoop, liveRail } from './live';
import { auditScreening, startReviewer } from './screening';
import { startCardChaos } from './cards';
import { clientLoop, newTrafficLog, type TrafficLog } from './traffic';
import { startTreasuryChaos } from './treasury';
import { auditRates, CHAOS_RATE_ENV, rateFaults } from './rates';
import { auditPartner, chaosPartnerEnv, partnerLoop, type PartnerTraffic, startChaosPartner } from './partner';
import { startSolanaChaos } from './solana';
import { startNotifyChaos } from './notify';
import { auditPgFailover, describeKill, describeRejoin, killPrimaryUnderTraffic, killsSummary, PRIMARY_KILLS, type PrimaryKill } from './pg-failover';
import { pgHaMissing } from '../pg-ha/cluster';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string' },
    seconds: { type: 'string' },
    seed: { type: 'string', default: '1' },
    clients: { type: 'string', default: '4' },
    'quiesce-timeout': { type: 'string', default: '300' },
    'dev-server': { type: 'boolean', default: false },
    'single-postgres': { type: 'boolean', default: false },
    'no-live': { type: 'boolean', default: false },
  },
});
const trafficMs = args.seconds ? Number(args.seconds) * 1000 : Number(args.minutes ?? 1) * 60_000;
const seed = Number(args.seed);
const clients = Number(args.clients);
if (!(trafficMs > 0) || !Number.isInteger(seed) || !(clients > 0)) {
  console.error('usage: npm run chaos -- [--minutes N | --seconds N] [--seed S] [--clients C] [--dev-server] [--single-postgres] [--no-live]');
  process.exit(2);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const t0 = Date.now();
const at = () => `${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s`;
const say = (line: string) => console.log(`${at()}  ${line}`);

/** Rows of the printed tables, padded to the widest cell. */
function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

interface Fault {
  at: string;
  what: string;
}

/** Runs the faults one at a time (a PostgreSQL failover is the only fault of its window). */
function exclusive(): <T>(fault: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (fault) => {
    const next = last.then(fault, fault);
    last = next.catch(() => {});
    return next;
  };
}

/**
 * On the HA pair: the PostgreSQL primary SIGKILLed at 25 % and again at 65 % of the run, the
 * second once the pair is steady again (tools/chaos/pg-failover.ts). Other faults wait while a
 * kill is being promoted and the service is not serving yet, not while the old primary rejoins.
 * Each kill is in `kills` and, with its rejoin, in the fault log.
 */
async function primaryKills(stack: Stack, owner: ChaosClient, traffic: TrafficLog, run: string, start: number, until: number, one: ReturnType<typeof exclusive>, log: Fault[], kills: PrimaryKill[]): Promise<void> {
  for (const [i, share] of [0.25, 0.65].slice(0, PRIMARY_KILLS).entries()) {
    await sleep(start + (until - start) * share - Date.now());
    const { kill, rejoined } = await one(async () => {
      say(`SIGKILL the PostgreSQL primary (${i + 1} of ${PRIMARY_KILLS}); the standby takes over, the old primary comes back as the standby`);
      const r = await killPrimaryUnderTraffic(stack, owner, `${run}-pg-serving-${i + 1}`, traffic, at);
      kills.push(r.kill);
      log.push({ at: r.kill.at, what: describeKill(r.kill) });
      say(describeKill(r.kill));
      return r;
    });
    await rejoined;
    log.push({ at: at(), what: describeRejoin(kill) });
    say(describeRejoin(kill));
  }
}

/**
 * Kills something every 3-7 s until `until`; Temporal (one node of the cluster) once at 40 % of
 * the run; on a cluster stack with one PostgreSQL server, PostgreSQL once at 65 % (on the HA pair:
 * {@link primaryKills}); with the test bank, its SFTP connections cut once at 20 % and its SFTP
 * server restarted once at 55 % (and a random share of the rest). Each fault runs under `one`.
 */
async function faults(stack: Stack, rng: Rng, start: number, until: number, log: Fault[], one: ReturnType<typeof exclusive>): Promise<void> {
  let temporalDone = false;
  let postgresDone = !stack.cluster || !stack.pg;
  // The test bank: its SFTP connections cut at 20 % and its server restarted at 55 % of the run,
  // besides a random share of the other faults.
  let bankCutDone = !stack.bank;
  let bankRestartDone = !stack.bank;
  const bankCutAt = start + (until - start) * 0.2;
  const bankRestartAt = start + (until - start) * 0.55;
  const restartAt = start + (until - start) * 0.4;
  const postgresAt = start + (until - start) * 0.65;
  while (Date.now() < until) {
    await sleep(rng.int(3000, 7000));
    if (Date.now() >= until) break;
    await one(async () => {
      if (Date.now() >= until) return;
      if (!temporalDone && Date.now() >= restartAt) {
        temporalDone = true;
        say(stack.cluster ? 'SIGKILL one Temporal node; bringing it back after 5 s' : 'SIGKILL Temporal dev server; restarting it on the same SQLite file');
        const what = await stack.restartTemporal(stack.cluster ? rng.int(0, stack.cluster.nodes.length - 1) : undefined);
        log.push({ at: at(), what });
        return;
      }
      if (!postgresDone && Date.now() >= postgresAt) {
        postgresDone = true;
        const s = Date.now();
        say('PostgreSQL stopped at once (immediate mode) and started again');
        await stack.restartPostgres();
        log.push({ at: at(), what: `PostgreSQL restarted (immediate stop), back in ${((Date.now() - s) / 1000).toFixed(1)} s` });
        return;
      }
      const bankCut = !bankCutDone && Date.now() >= bankCutAt;
      const bankRestart = !bankCut && !bankRestartDone && Date.now() >= bankRestartAt;
      if (stack.bank && (bankCut || bankRestart || rng.chance(0.15))) {
        const bank = stack.bank;
        if (bankCut) bankCutDone = true;
        if (bankRestart) bankRestartDone = true;
        if (bankCut || (!bankRestart && rng.chance(0.5))) {
          say('test bank: every SFTP connection cut');
          await bank.cutConnections();
          log.push({ at: at(), what: 'bank SFTP connections cut' });
        } else {
          const s = Date.now();
          say('test bank: SFTP server restarted');
          await bank.restart();
          log.push({ at: at(), what: `bank SFTP server restarted, back in ${((Date.now() - s) / 1000).toFixed(1)} s` });
        }
        return;
      }
      const candidates: ServiceProcess[] = [...stack.apis, ...stack.workers].filter((p) => p.alive);
      if (candidates.length === 0) return;
      const victim = rng.pick(candidates);
      say(`SIGKILL ${victim.name} (pid ${victim.pid})`);
      await victim.kill('SIGKILL');
      const s = Date.now();
      await sleep(rng.int(200, 1500));
      try {
        await victim.start();
        victim.restarts++;
        log.push({ at: at(), what: `${victim.name} SIGKILLed, back in ${((Date.now() - s) / 1000).toFixed(1)} s` });
      } catch (err) {
        log.push({ at: at(), what: `${victim.name} SIGKILLed, did NOT restart: ${String(err).slice(0, 200)}` });
      }
    });
  }
}

/** Waits until nothing is in flight: payouts, batches, outboxes, webhook deliveries. */
async function quiesce(stack: Stack, timeoutMs: number): Promise<{ ok: boolean; detail: string }> {
  const deadline = Date.now() + timeoutMs;
  let detail = '';
  let lastSaid = 0;
  for (;;) {
    const r = await sql<{ payouts: string; batches: string; events: string; deliveries: string; starts: string; deposits: string; notifications: string; rail_waiting: string; rail_undispatched: string; rail_return_window: string }>`
      select
        (select count(*) from payouts where status in ('pending', 'submitted', 'delivering', 'claimed'))::text as payouts,
        (select count(*) from disbursements where status in ('processing', 'paused'))::text as batches,
        (select count(*) from events where dispatched_at is null)::text as events,
        (select count(*) from webhook_deliveries where status = 'pending')::text as deliveries,
        (select count(*) from workflow_starts where started_at is null)::text as starts,
        (select count(*) from deposits where status not in ('credited', 'dropped'))::text as deposits,
        (select count(*) from notifications where status = 'pending')::text as notifications,
        (select count(*) from rail_instructions where status in ('queued', 'in_file', 'accepted'))::text as rail_waiting,
        (select count(*) from rail_events where dispatched_at is null)::text as rail_undispatched,
        -- a live payout that succeeded less than its rail's return window ago still has a running
        -- workflow (its timer fires, then its last task runs: 10 s of margin on a loaded machine),
        -- and a late return may still come in it (ACH: the bank's late returns land about 5 s after
        -- settlement). The windows are tools/stack's: PT180S on both rails.
        (select count(*) from payouts p join rail_instructions ri on ri.payout_id = p.id
          where p.status = 'succeeded' and ri.status = 'settled'
            and p.updated_at > now() - interval '190 seconds')::text as rail_return_window`.execute(stack.db);
    const row = r.rows[0]!;
    detail = `payouts in flight ${row.payouts}, batches running ${row.batches}, undispatched events ${row.events}, pending deliveries ${row.deliveries}, unstarted workflows ${row.starts}, deposits not credited ${row.deposits}, notifications pending ${row.notifications}, live payments waiting for the bank ${row.rail_waiting}, bank statuses undispatched ${row.rail_undispatched}, live payouts in their return window ${row.rail_return_window}`;
    if (Object.values(row).every((v) => v === '0')) return { ok: true, detail };
    if (Date.now() > deadline) return { ok: false, detail };
    if (Date.now() - lastSaid > 15_000) {
      lastSaid = Date.now();
      say(`not yet quiescent: ${detail}`);
    }
    await sleep(1000);
  }
}

async function main(): Promise<number> {
  const rng = new Rng(seed);
  const run = `${seed}-${Date.now().toString(36)}`;
  say(`chaos: ${trafficMs / 1000} s of traffic, seed ${seed}, ${clients} clients`);
  // The cluster runs on the HA pair unless told otherwise; without pg_auto_failover (a developer's
  // machine) on one server, unless REQUIRE_PG_AUTO_FAILOVER=1 (CI).
  let haPostgres = !args['dev-server'] && !args['single-postgres'];
  const haMissing = haPostgres ? pgHaMissing() : null;
  if (haMissing) {
    if (process.env.REQUIRE_PG_AUTO_FAILOVER === '1') {
      console.error(`chaos: REQUIRE_PG_AUTO_FAILOVER=1 but ${haMissing}`);
      return 2;
    }
    say(`PostgreSQL: one server, not the HA pair (${haMissing})`);
    haPostgres = false;
  }
  // USDC on Solana (tools/chaos/solana.ts): the test chain is the stack's live network.
  const solana = await startSolanaChaos(new Rng(seed + 37));
  let stack: Stack;
  // The payout partner (tools/chaos/partner.ts): with the live traffic, on its own seed.
  const partner = args['no-live'] ? null : await startChaosPartner(new Rng(seed + 35));
  const partnerTraffic: PartnerTraffic = { ids: [], refused: [] };
  // The card processor (tools/chaos/cards.ts): live card top-ups with the live traffic.
  const cards = args['no-live'] ? null : await startCardChaos(new Rng(seed + 38));
  const notify = await startNotifyChaos(`/tmp/chaos-notify-${run}`);
  try {
    stack = await startStack({
      apis: 2,
      workers: 2,
      clusterNodes: args['dev-server'] ? 0 : 2,
      haPostgres,
      testBank: !args['no-live'],
      // Webhook retries from 0.5 s (doubling) so that a recovered receiver is caught up quickly.
      env: { WEBHOOK_RETRY_INITIAL: 'PT0.5S', LOG_LEVEL: 'info', TREASURY_BOOKS_ONLY_GRACE: 'PT5S', ...CHAOS_RATE_ENV, ...(partner ? chaosPartnerEnv(partner) : {}), ...solana.env, ...notify.env, ...(cards?.env ?? {}) },
      log: (l) => say(`[stack] ${l}`),
    });
  } catch (err) {
    console.error(`chaos: the stack did not start: ${String((err as Error)?.stack ?? err)}`);
    await solana.close();
    await cards?.close();
    return 2;
  }
  partner?.setWebhookTarget(`${stack.url}/hooks/partner/wise`);
  cards?.attach(stack.url);
  const receiver = await startReceiver(rng.fork());
  notify.attach(stack.url);
  try {
    const business = await stack.createBusiness(`Chaos ${run}`, 1, true);
    const stats = newStats();
    const owner = new ChaosClient(stack.url, business.keys.sandbox, rng.fork(), stats);
    const hook = await owner.send('POST', '/webhooks', { body: { url: receiver.url, events: ['*'] }, idem: `${run}-hook` });
    if (hook.status !== 201) throw new Error(`webhook registration: ${hook.status} ${JSON.stringify(hook.body)}`);
    receiver.secret = hook.body.secret;
    const endpointCreatedAt = new Date(hook.body.created_at);
    const keyRes = await owner.send('POST', '/api-keys', { body: { name: 'chaos approver' } });
    if (keyRes.status !== 201) throw new Error(`approver key: ${keyRes.status} ${JSON.stringify(keyRes.body)}`);
    const approver = owner.withKey(keyRes.body.key);
    const funded = await owner.send('POST', '/sandbox/fund', { body: { amount: '1000000' }, idem: `${run}-fund0` });
    if (funded.status !== 200) throw new Error(`funding: ${funded.status} ${JSON.stringify(funded.body)}`);

    // Deposits into a virtual account, when the service has them (404 otherwise).
    const va = await owner.send('POST', '/virtual-accounts', { body: { currency: 'USD' }, idem: `${run}-va` });
    const virtualAccountId: string | null = va.status === 201 ? va.body.id : null;
    say(virtualAccountId ? `virtual account ${virtualAccountId} for deposits` : `no deposits (POST /virtual-accounts: HTTP ${va.status})`);
    // Surface C payouts, when the service has the payout guide.
    const guideClient = owner.withPrefix('/sandbox/guide/v1');
    const guideRecipient = await guideClient.send('POST', '/recipients', { body: { phone_number: '+525512345678', country: 'MX' }, idem: `${run}-c-rcp` });
    const guide = guideRecipient.status === 201 || guideRecipient.status === 200 ? { client: guideClient, recipientId: String(guideRecipient.body.id) } : null;
    say(guide ? `Surface C recipient ${guide.recipientId}` : `no Surface C traffic (POST /sandbox/guide/v1/recipients: HTTP ${guideRecipient.status})`);
    // Live traffic through the test bank (tools/chaos/live.ts): the live balance funded by a credit first.
    const liveCredits: LiveCredit[] = [];
    const live = stack.bank ? owner.withKey(business.keys.live).withPrefix('/v1') : null;
    const liveIban = stack.bank && live ? await fundLive(live, stack.db, stack.bank, run, liveCredits) : null;
    say(liveIban ? `live: virtual IBAN ${liveIban} funded by a camt.054 credit` : 'no live traffic (--no-live)');
    const liveGuide = live && liveIban ? await notify.liveGuide(live, run) : null;
    await solana.setup(owner.withKey(business.keys.live).withPrefix('/claim/v1'));
    const traffic = newTrafficLog();
    const faultLog: Fault[] = [];
    const kills: PrimaryKill[] = [];
    const one = exclusive();
    // Operators deciding the payouts screening holds, until the audit (tools/chaos/screening.ts).
    const stopReviewer = live && liveIban ? startReviewer(stack.db, stack.temporalAddress, say) : null;
    const start = Date.now();
    const until = start + trafficMs;
    say(`traffic starts (business ${business.business_id}, receiver ${receiver.url})`);
    const treasury = stack.bank ? startTreasuryChaos(stack.bank, start, until, say) : null;
    const failFrom = start + trafficMs * 0.5;
    const failTo = start + trafficMs * 0.7;
    const receiverPlan = (async () => {
      await sleep(failFrom - Date.now());
      say('webhook receiver starts failing (503 / dropped connections)');
      receiver.setFailing(true);
      await sleep(failTo - Date.now());
      receiver.setFailing(false);
      say('webhook receiver recovered');
    })();
    const active = { disbursements: 0 };
    const progress = setInterval(() => say(`traffic: ${traffic.payouts.length} payouts, ${traffic.disbursements.length} disbursements, ${stats.requests} requests, ${stats.cut} cut`), 15_000);
    await Promise.all([
      faults(stack, rng.fork(), start, until, faultLog, one),
      ...(stack.pgHa ? [primaryKills(stack, owner, traffic, run, start, until, one, faultLog, kills)] : []),
      receiverPlan,
      ...Array.from({ length: clients }, () => clientLoop(owner, approver, rng.fork(), traffic, run, until, active, 2, virtualAccountId, guide)),
      solana.loop(until),
      ...(live && stack.bank && liveIban ? [liveLoop(live, rng.fork(), traffic, run, until, stack.bank, liveIban, liveCredits)] : []),
      ...(stack.rates ? [rateFaults(stack.rates, start, until, say)] : []),
      ...(live && liveIban && partner ? [partnerLoop(live, new Rng(seed + 36), run, until, partnerTraffic)] : []),
      ...(live && liveIban && cards ? [cards.loop(owner.withKey(business.keys.live).withPrefix('/claim/v1'), until, run)] : []),
      ...(liveGuide ? [notify.loop(liveGuide.client, liveGuide.recipientId, rng.fork(), until, run, traffic)] : []),
    ]);
    clearInterval(progress);
    say(`traffic over; waiting for ${traffic.background.length} background flows (claims, disbursements)`);
    await Promise.all(traffic.background);
    // Everything back up before the audit (supervision restarts anything that died on its own).
    for (const p of [...stack.apis, ...stack.workers]) if (!p.alive) await p.start().catch(() => {});
    say(`solana: every transfer settled: ${await solana.waitSettled(stack.db, Number(args['quiesce-timeout']) * 1000)}`);
    say('waiting for quiescence');
    const q = await quiesce(stack, Number(args['quiesce-timeout']) * 1000);
    say(`quiescent: ${q.ok} (${q.detail})`);
    const reviewed = await stopReviewer?.();
    if (reviewed) say(`screening reviewer: ${reviewed.decided} cases decided, ${reviewed.resignalled} decisions signalled again`);
    const checks: Check[] = [{ name: 'quiescence: nothing left in flight', ok: q.ok, detail: q.detail }];
    const diagnostics: string[] = [];
    checks.push(
      ...(await audit({
        db: stack.db,
        temporalAddress: stack.temporalAddress,
        businessId: business.business_id,
        client: owner,
        traffic,
        receiver,
        endpointCreatedAt,
        diagnostics,
        ...(stack.bank ? { liveCredits } : {}),
      })),
      ...(stack.rates ? await auditRates(stack.db) : []),
    );
    if (treasury) checks.push(...(await treasury.audit(stack.db)));
    if (partner) checks.push(...(await auditPartner(stack.db, partner, partnerTraffic)));
    checks.push(...(await solana.audit(stack.db)));
    checks.push(...(await notify.audit(stack.db)));
    if (live && liveIban) checks.push(...(await auditScreening(stack.db)));
    if (live && liveIban && cards) checks.push(...(await cards.audit(stack.db)));
    if (stack.pgHa) checks.push(...(await auditPgFailover({ db: stack.db, businessId: business.business_id, traffic, kills, bankFilesDir: stack.bank?.filesDir ?? null })));
    checks.push({
      name: 'traffic: no unexpected answer',
      ok: traffic.unexpected.length === 0 && stats.gaveUp === 0,
      detail: `${traffic.unexpected.length} unexpected [${traffic.unexpected.slice(0, 3).join('; ')}]; ${stats.gaveUp} requests given up [${stats.gaveUpRequests.slice(0, 3).join('; ')}]`,
    });

    const kinds = (k: string) => traffic.payouts.filter((p) => p.kind === k && p.status === 201).length;
    const liveOn = (rail: 'sepa' | 'ach') => traffic.payouts.filter((p) => p.kind === 'live' && p.status === 201 && liveRail(p.reference) === rail);
    const achBy = (ref: string) => liveOn('ach').filter((p) => p.reference === ref).length;
    const plans = (p: string) => traffic.payouts.filter((r) => r.plan === p && r.status === 201).length;
    console.log(
      `\nChaos run: seed ${seed}, ${trafficMs / 1000} s of traffic, ${clients} clients, 2 API + 2 worker processes, ${stack.pgHa ? `PostgreSQL HA pair ${stack.pgHa.addr} (pg_auto_failover)` : `PostgreSQL ${stack.pg!.port}`}, ${stack.cluster ? `Temporal cluster of ${stack.cluster.nodes.length} nodes on PostgreSQL` : 'Temporal dev server'}\n`,
    );
    console.log(
      table(
        ['traffic and faults', 'count'],
        [
          ['bank payouts accepted (every sandbox outcome)', String(kinds('bank'))],
          ['claim links accepted (claimed / left waiting / left to expire)', `${kinds('claim')} (${plans('claim')} / ${plans('wait')} / ${plans('expire')})`],
          ['Surface C payouts accepted (claim links notified by sms)', String(kinds('guide'))],
          ['live sepa_eur payouts accepted (pain.001 over SFTP to the test bank)', String(liveOn('sepa').length)],
          [
            'live ach_usd payouts accepted (NACHA over SFTP; settled / R01 / R03 / late R02)',
            `${liveOn('ach').length} (${achBy('live:ach:settled')} / ${achBy('live:ach:R01')} / ${achBy('live:ach:R03')} / ${achBy('live:ach:late')})`,
          ],
          ['live spei_mxn payouts through the payout partner (test partner with chaos)', String(partnerTraffic.ids.length)],
          solana.summary(),
          notify.summary(),
          ...(cards ? [cards.summary()] : []),
          ['live deposits (camt.054 credits; sent twice)', `${liveCredits.length} (${liveCredits.filter((c) => c.copies > 1).length})`],
          ['payout requests answered other than 201', String(traffic.payouts.filter((p) => p.status !== 201).length)],
          ['fundings', String(traffic.funds.length)],
          ['deposits (simulated bank transfers into a virtual account)', String(traffic.deposits.length)],
          ['disbursements (paused+resumed / retry-failed)', `${traffic.disbursements.length} (${traffic.disbursements.filter((d) => d.steps.includes('resumed')).length} / ${traffic.disbursements.filter((d) => d.steps.includes('retry-failed')).length})`],
          ['reads', String(traffic.reads)],
          ['HTTP requests sent (incl. retries)', String(stats.requests)],
          ['connections cut by the client, then retried', String(stats.cut)],
          ['retries (network errors / 5xx / 409 in flight)', `${stats.retries} (${stats.networkErrors} / ${stats.status5xx} / ${stats.inFlight409})`],
          ['idempotent replays received', String(stats.replays)],
          ['proxy 502s (upstream died mid-request)', String(stack.proxy.badGateways)],
          ['processes SIGKILLed and restarted', String(faultLog.filter((f) => !f.what.startsWith('Temporal') && !f.what.startsWith('PostgreSQL') && !f.what.startsWith('bank')).length)],
          ['bank SFTP connections cut / SFTP server restarts', `${faultLog.filter((f) => f.what.startsWith('bank SFTP connections')).length} / ${faultLog.filter((f) => f.what.startsWith('bank SFTP server')).length}`],
          [stack.cluster ? 'Temporal nodes SIGKILLed and brought back' : 'Temporal dev server restarts', String(faultLog.filter((f) => f.what.startsWith('Temporal')).length)],
          ...(stack.pgHa ? [killsSummary(kills)] : [['PostgreSQL restarts (immediate stop)', String(faultLog.filter((f) => f.what.startsWith('PostgreSQL restarted')).length)]]),
          ['processes that died on their own (restarted)', String(stack.crashes.length)],
          ['webhook requests refused while the receiver failed', String(receiver.hits.filter((h) => h.answered !== 200).length)],
        ],
      ),
    );
    console.log();
    console.log(table(['check', 'result', 'detail'], checks.map((c) => [c.name, c.ok ? 'PASS' : 'FAIL', c.detail])));
    const failed = checks.filter((c) => !c.ok).length;
    console.log(`\n${failed === 0 ? 'chaos: every check holds' : `chaos: ${failed} check(s) FAILED`} (${at().trim()} in all)`);
    if (failed > 0 && diagnostics.length > 0) console.log(`\nProblem payouts:\n${diagnostics.join('\n')}`);
    if (failed > 0 && process.env.STACK_KEEP_LOGS) console.log(`\nProcess logs: ${stack.dir}`);
    return failed === 0 ? 0 : 1;
  } finally {
    await receiver.close();
    await stack.stop();
    await partner?.stop();
    await solana.close();
    await cards?.close();
    await notify.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(String(err?.stack ?? err));
    process.exit(1);
  },
);
