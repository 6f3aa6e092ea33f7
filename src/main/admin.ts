import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../config';
import { revokeApiKeyAsOperator } from '../core/api-keys';
import { renderApiKey } from '../wire/surface-a/api-keys';
import { createBusiness, setPayeeBatchVerification, verifyBusiness } from '../core/businesses';
import { runRailCommand } from './admin-rails';
import { runWorkflowsCommand } from './admin-workflows';
import { type ChannelPause, listChannelPauses, pauseChannel, resumeChannel } from '../core/channel-pauses';
import { formatTreasuryReport, treasuryReport } from '../core/treasury/report';
import { actAsRole, databaseRole, type DbTarget, migrate, openDb } from '../db/connection';
import { operatorActor, recordAuditEvent, verifyAuditChain } from '../core/audit';
import { keyringFor } from '../core/secrets';
import { resealStoredSecrets } from '../core/webhook-endpoints';
import { applyGrants } from '../db/migrations/0065_defense_in_depth';
import { PgliteLockedError } from '../db/pglite-lock';
import { createLogger } from '../core/logging';
import { join, resolve } from 'node:path';

/**
 * `npm run admin -- <command>`: the operator's commands (docs/configuration.md lists them). Every
 * command that changes state leaves an audit record (actor `user@host`). Uses DATABASE_URL, or
 * PGlite in DATA_DIR; while `npm run dev` holds that directory it exits 3 naming the holder.
 * `--json`: exactly one JSON document on stdout, all else on stderr (docs/configuration.md "Install details").
 */
if (process.argv[2] === 'screening') process.exit(await (await import('./admin-screening')).runScreeningCli(process.argv.slice(3)));
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    verified: { type: 'boolean', default: false },
    force: { type: 'boolean', default: false },
    approvals: { type: 'string' },
    reason: { type: 'string' },
    json: { type: 'boolean', default: false },
    business: { type: 'string' },
  },
});
/** A channel pause as the admin command prints it (`--json`): snake_case, `paused_at` ISO 8601. */
const pauseJson = (p: ChannelPause) => ({ channel: p.channel, reason: p.reason, paused_by: p.pausedBy, paused_at: p.pausedAt.toISOString() });

const usage =
  'usage: npm run admin -- business create --name <name> [--verified] [--approvals N] [--json]\n' +
  '       npm run admin -- business verify <business_id> [--json]\n' +
  '       npm run admin -- business payee-batches <business_id> on|off [--json]\n' +
  '       npm run admin -- key revoke <key_id> [--force] [--json]\n' +
  '       npm run admin -- treasury [--json]\n' +
  '       npm run admin -- audit verify [--business <id>] [--json]\n' +
  '       npm run admin -- secrets rotate [--json]\n' +
  '       npm run admin -- db grants [--json]\n' +
  'With --json, stdout carries exactly one JSON document (errors and logs go to stderr); npm prints\n' +
  'its "> script" banner on stdout unless run as npm run -s admin -- ... --json | jq .';
if (positionals[0] === 'workflows') process.exit(await runWorkflowsCommand(positionals.slice(1), values.json));
const auditVerify = positionals[0] === 'audit' && positionals[1] === 'verify';
const secretsRotate = positionals[0] === 'secrets' && positionals[1] === 'rotate';
const dbGrants = positionals[0] === 'db' && positionals[1] === 'grants';
const verify = positionals[0] === 'business' && positionals[1] === 'verify' && !!positionals[2];
const payeeBatches = positionals[0] === 'business' && positionals[1] === 'payee-batches' && !!positionals[2] && (positionals[3] === 'on' || positionals[3] === 'off');
const revokeKey = positionals[0] === 'key' && positionals[1] === 'revoke' && !!positionals[2];
const rail =
  positionals[0] === 'rail' && (positionals[1] === 'files' || positionals[1] === 'unmatched' || positionals[1] === 'partner-transfers' || (positionals[1] === 'file' && !!positionals[2]));
const channelCmd =
  positionals[0] === 'channel' && (positionals[1] === 'list' || ((positionals[1] === 'pause' || positionals[1] === 'resume') && !!positionals[2]));
const treasury = positionals[0] === 'treasury' && positionals.length === 1;
if (!verify && !payeeBatches && !revokeKey && !rail && !channelCmd && !treasury && !auditVerify && !secretsRotate && !dbGrants && (positionals[0] !== 'business' || positionals[1] !== 'create' || !values.name)) {
  console.error(usage);
  process.exit(2);
}
let exitCode = 0;
const config = loadConfig();
let db: Awaited<ReturnType<typeof openDb>>;
const target: DbTarget = config.DATABASE_URL ? { url: config.DATABASE_URL } : { pgliteDir: resolve(join(config.DATA_DIR)) };
try {
  db = await openDb(target, { poolSize: 1 });
} catch (err) {
  if (!(err instanceof PgliteLockedError)) throw err;
  console.error(`npm run admin: ${err.message}`);
  process.exit(3);
}
try {
  await migrate(db);
  // Every command but `db grants` (which only the owner may run) acts as payouts_admin.
  const role = dbGrants ? null : databaseRole(config.DATABASE_ROLE, 'payouts_admin');
  if (role) db = await actAsRole(db, target, role, { poolSize: 1 });
  if (payeeBatches) {
    const on = positionals[3] === 'on';
    const r = await setPayeeBatchVerification(db, positionals[2]!, on);
    await recordAuditEvent(db, { businessId: r.businessId, environment: null, ...operatorActor(), action: 'business.payee_batches_set', objectType: 'business', objectId: r.businessId, before: null, after: { verify_payee_batches: on } });
    console.log(values.json ? JSON.stringify({ business_id: r.businessId, verify_payee_batches: on }) : `business ${r.businessId}: disbursement items ${on ? 'are' : 'are not'} verified (Verification of Payee)`);
  } else if (auditVerify) {
    const report = await verifyAuditChain(db, { businessId: values.business });
    if (values.json) console.log(JSON.stringify(report, null, 2));
    else {
      console.log(`${report.records} audit records in ${report.chains} chains checked`);
      for (const p of report.problems) console.log(`PROBLEM ${p.businessId} seq ${p.seq}${p.id ? ` (${p.id})` : ''}: ${p.problem}: ${p.detail}`);
      for (const h of report.heads) console.log(`head ${h.businessId} seq ${h.seq} ${h.hash}`);
    }
    if (report.problems.length > 0) exitCode = 1;
  } else if (secretsRotate) {
    const ring = keyringFor(config);
    const report = await resealStoredSecrets(db, ring);
    await recordAuditEvent(db, { businessId: null, environment: null, ...operatorActor(), action: 'secrets.rotated', objectType: 'secrets_key', objectId: ring.activeKeyId, before: null, after: { ...report } });
    console.log(values.json ? JSON.stringify(report) : `${report.resealed} secrets re-encrypted under key ${report.activeKeyId}; ${report.unchanged} already were`);
  } else if (dbGrants) {
    await applyGrants(db);
    await recordAuditEvent(db, { businessId: null, environment: null, ...operatorActor(), action: 'database.grants_applied', objectType: 'database', objectId: 'roles', before: null, after: null });
    const roles = ['payouts_api', 'payouts_worker', 'payouts_admin'];
    console.log(values.json ? JSON.stringify({ grants_applied: roles }) : `grants applied to ${roles.join(', ')} (each that exists)`);
  } else if (channelCmd) {
    const audit = createLogger({ base: { component: 'admin' } }, pino.destination(2));
    const channel = positionals[2]!;
    if (positionals[1] === 'list') {
      const pauses = (await listChannelPauses(db)).map(pauseJson);
      if (values.json) console.log(JSON.stringify(pauses, null, 2));
      else if (pauses.length === 0) console.log('no channel paused at runtime');
      else console.table(pauses);
    } else if (positionals[1] === 'pause') {
      const p = await pauseChannel(db, channel, { reason: values.reason ?? null, operator: userInfo().username }).catch((err: Error) => {
        console.error(err.message);
        exitCode = 1;
        return null;
      });
      if (p) {
        audit.info({ channel, reason: p.reason, operator: userInfo().username }, 'channel paused by operator');
        audit.flush();
        console.log(values.json ? JSON.stringify(pauseJson(p)) : `channel ${channel} paused (every API and worker process within seconds)`);
      }
    } else {
      const was = await resumeChannel(db, channel);
      audit.info({ channel, operator: userInfo().username, was_paused: was }, 'channel resumed by operator');
      audit.flush();
      console.log(values.json ? JSON.stringify({ channel, resumed: was }) : was ? `channel ${channel} resumed` : `channel ${channel} was not paused at runtime`);
    }
  } else if (treasury) {
    const accounts = await treasuryReport(db);
    console.log(values.json ? JSON.stringify(accounts, null, 2) : formatTreasuryReport(accounts));
  } else if (rail) {
    exitCode = await runRailCommand(db, positionals[1], positionals[2], values.json);
  } else if (revokeKey) {
    const audit = createLogger({ base: { component: 'admin' } }, pino.destination(2));
    const k = await revokeApiKeyAsOperator(db, positionals[2], { force: values.force }).catch((err: Error & { code?: string }) => {
      console.error(`${err.code ? `${err.code}: ` : ''}${err.message}${err.code === 'last_owner_key' ? ' (pass --force to revoke it anyway)' : ''}`);
      exitCode = 1;
      return null;
    });
    if (k) {
      const r = { ...renderApiKey(k), business_id: k.businessId, environment: k.environment };
      audit.info(
        { key_id: r.id, business_id: r.business_id, environment: r.environment, operator: userInfo().username, forced: values.force, revoked_at: r.revoked_at },
        'api key revoked by operator',
      );
      audit.flush();
      console.log(values.json ? JSON.stringify(r) : `api key ${r.id} (${r.prefix}…${r.last4 ?? ''}) of business ${r.business_id} revoked at ${r.revoked_at}`);
    }
  } else if (verify) {
    const r = await db
      .transaction()
      .execute(async (tx) => {
        const out = await verifyBusiness(tx, positionals[2]!);
        await recordAuditEvent(tx, { businessId: out.businessId, environment: null, ...operatorActor(), action: 'business.verified', objectType: 'business', objectId: out.businessId, before: null, after: { verified: true } });
        return { business_id: out.businessId, verified: out.verified };
      })
      .catch((err: Error) => {
      console.error(err.message);
      exitCode = 1;
      return null;
    });
    if (r) console.log(values.json ? JSON.stringify(r) : `business ${r.business_id} verified`);
  } else {
    const input = { name: values.name as string, verified: values.verified, approvalsRequired: values.approvals ? Number(values.approvals) : undefined };
    const created = await db.transaction().execute(async (tx) => {
      const out = await createBusiness(tx, input);
      await recordAuditEvent(tx, { businessId: out.businessId, environment: null, ...operatorActor(), action: 'business.created', objectType: 'business', objectId: out.businessId, before: null, after: { ...input } });
      return { business_id: out.businessId, keys: out.keys };
    });
    if (values.json) console.log(JSON.stringify(created));
    else {
      console.log(`business ${created.business_id}`);
      console.log(`  sandbox owner key: ${created.keys.sandbox}`);
      console.log(`  live owner key:    ${created.keys.live}`);
    }
  }
} finally {
  await db.destroy();
}
process.exit(exitCode);
