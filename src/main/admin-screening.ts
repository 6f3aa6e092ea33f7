/** `npm run admin -- screening load | check | status | review ... [--json]`: usage in `USAGE`, behaviour and exit codes in docs/screening.md "For operators". */
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { loadConfig } from '../config';
import { operatorActor, recordAuditEvent } from '../core/audit';
import {
  type CaseContext, decideCase, getScreeningCase, listScreeningCases, type ScreeningCase, ScreeningCaseError, type ScreeningCaseStatus, takeCaseForReview,
} from '../core/screening/cases';
import { refreshList } from '../core/screening/lists';
import { type ScreeningResult, type ScreeningStatus, ScreeningService } from '../core/screening/service';
import { actAsRole, databaseRole, type DbTarget, migrate, openDb } from '../db/connection';
import type { Db } from '../db/schema';
import { SCREENING_LIST_MODULES, screeningConfig, screeningListModule } from '../screening/index';
import { connectTemporal, type TemporalClient } from '../temporal/client';
import { temporalConnectionOptions } from '../temporal/connection-options';
import { signalScreeningDecision } from '../temporal/payout-gateway';

const USAGE =
  'usage: npm run admin -- screening load --list <id> (--dir <directory> | --url <url>) [--json]\n' +
  '       npm run admin -- screening check --name "<name>" [--kind individual|entity] [--country CC] [--dob YYYY-MM-DD] [--id <identifier>] [--list <id>] [--json]\n' +
  '       npm run admin -- screening status [--json]\n' +
  '       npm run admin -- screening review list [--status open|in_review|released|rejected|all] [--json]\n' +
  '       npm run admin -- screening review show <case> [--json]\n' +
  '       npm run admin -- screening review open <case> [--operator <name>] [--json]\n' +
  '       npm run admin -- screening review release|reject <case> --reason "<text>" [--operator <name>] [--json]\n' +
  `lists: ${SCREENING_LIST_MODULES.map((m) => m.id).join(', ')}`;

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** A screening result as the CLI prints it (`--json`). */
export function renderScreeningResult(r: ScreeningResult) {
  return {
    screening_id: r.screeningId,
    outcome: r.outcome,
    ...(r.outcome === 'unavailable' ? { reasons: r.reasons } : {}),
    hits: r.hits.map((h) => ({
      list: h.list,
      version_id: h.versionId,
      entry_id: h.entryId,
      entry_kind: h.entryKind,
      entry_name: h.entryName,
      matched_name: h.matchedName,
      programs: h.programs,
      name_score: h.nameScore,
      score: h.score,
      disambiguators: h.disambiguators,
      confirmed: h.confirmed,
      reason: h.reason,
    })),
    list_versions: r.listVersions.map((v) => ({ list: v.list, version_id: v.versionId, sha256: v.sha256, published_at: iso(v.publishedAt), checked_at: iso(v.checkedAt) })),
  };
}

/** The fail-closed status as the CLI prints it (`--json`). */
export function renderScreeningStatus(s: ScreeningStatus) {
  return {
    available: s.available,
    reasons: s.reasons,
    lists: s.lists.map((l) => ({
      list: l.list,
      version_id: l.versionId,
      checked_at: iso(l.checkedAt),
      age_seconds: l.ageSeconds === null ? null : Math.round(l.ageSeconds),
      max_age_hours: l.maxAgeHours,
      stale: l.stale,
      last_error: l.lastError,
    })),
  };
}

/** A screening case as the CLI prints it (`--json`). */
export function renderScreeningCase(c: ScreeningCase) {
  return {
    id: c.id, business_id: c.businessId, environment: c.environment, subject_type: c.subjectType, subject_id: c.subjectId, kind: c.kind,
    screening_id: c.screeningId, status: c.status, summary: c.summary,
    hits: c.hits.map((h) => ({ list: h.list, entry_id: h.entryId, entry_name: h.entryName, matched_name: h.matchedName, score: h.score, reason: h.reason })),
    opened_at: iso(c.openedAt), reviewer: c.reviewer, reviewed_at: iso(c.reviewedAt), decided_by: c.decidedBy, decided_at: iso(c.decidedAt),
    decision_reason: c.decisionReason,
  };
}

const caseLine = (c: ScreeningCase) =>
  `${c.id}  ${c.status}  ${c.kind}  payout ${c.subjectId} (${c.environment})  opened ${iso(c.openedAt)}${c.reviewer ? `  reviewer ${c.reviewer}` : ''}${c.decidedBy ? `  decided by ${c.decidedBy}` : ''}  ${c.summary}`;

/** What `screening review` needs besides the database: the public URL (for the payout in events) and a Temporal client, connected on first use. */
export interface ReviewDeps {
  publicUrl?: string;
  temporal?: () => Promise<TemporalClient>;
}

const CASE_STATUSES = ['open', 'in_review', 'released', 'rejected'] as const;

/**
 * `screening review`: the queue and the four-eyes decisions (docs/screening.md "Holding payouts").
 * After a committed release or rejection the payout's workflow is signalled; the same command again
 * on a decided case only re-sends that signal. Exit 1 on a refused act or an unsent signal.
 */
async function runReviewCommand(
  db: Db,
  args: string[],
  v: { json?: boolean; operator?: string; reason?: string; status?: string },
  deps: ReviewDeps,
): Promise<number> {
  const [action, caseId] = args;
  const out = (json: unknown, text: string) => console.log(v.json ? JSON.stringify(json, null, 2) : text);
  const ctx: CaseContext = { db, now: () => new Date(), config: { publicUrl: deps.publicUrl ?? '' } };
  const operator = { id: v.operator?.trim() || operatorActor().actor.id, source: operatorActor().source };
  try {
    if (action === 'list') {
      if (v.status && v.status !== 'all' && !(CASE_STATUSES as readonly string[]).includes(v.status)) {
        console.error(USAGE);
        return 2;
      }
      const statuses = v.status === 'all' ? [...CASE_STATUSES] : v.status ? [v.status as ScreeningCaseStatus] : undefined;
      const cases = await listScreeningCases(db, { statuses, limit: 500 });
      out({ cases: cases.map(renderScreeningCase) }, cases.length ? cases.map(caseLine).join('\n') : 'no screening cases');
      return 0;
    }
    if (!caseId || !['show', 'open', 'release', 'reject'].includes(action ?? '')) {
      console.error(USAGE);
      return 2;
    }
    if (action === 'show') {
      const c = await getScreeningCase(db, caseId);
      out(renderScreeningCase(c), [caseLine(c), ...c.hits.map((h) => `  ${h.score.toFixed(4)}  ${h.list} ${h.entryId}  ${h.entryName} (as "${h.matchedName}")  ${h.reason}`), ...(c.decisionReason ? [`  reason: ${c.decisionReason}`] : [])].join('\n'));
      return 0;
    }
    if (action === 'open') {
      const c = await takeCaseForReview(ctx, caseId, operator);
      out(renderScreeningCase(c), `${c.id} in review by ${c.reviewer}; another operator releases it, any operator may reject it`);
      return 0;
    }
    const reason = v.reason?.trim();
    if (!reason) {
      console.error(`--reason "<text>" is required for ${action}\n${USAGE}`);
      return 2;
    }
    const decision = action === 'release' ? 'released' : 'rejected';
    const { case: c, changed } = await decideCase(ctx, caseId, operator, decision, reason);
    let signal: 'sent' | 'not_running';
    try {
      if (!deps.temporal) throw new Error('no Temporal connection');
      signal = await signalScreeningDecision(await deps.temporal(), c.subjectId, { caseId: c.id, decision, reason: c.decisionReason });
    } catch (err) {
      console.error(`case ${c.id} is ${c.status}, but the payout's workflow was not signalled (${(err as Error).message}); run the same command again to send it`);
      if (v.json) console.log(JSON.stringify({ case: renderScreeningCase(c), changed, signal: 'failed' }, null, 2));
      return 1;
    }
    const note = signal === 'sent' ? `payout ${c.subjectId} signalled` : `payout ${c.subjectId} has no running workflow (nothing to signal)`;
    out({ case: renderScreeningCase(c), changed, signal }, `${c.id} ${c.status} by ${c.decidedBy}${changed ? '' : ' (already; signal sent again)'}; ${note}`);
    return 0;
  } catch (err) {
    if (!(err instanceof ScreeningCaseError)) throw err;
    console.error(err.message);
    return 1;
  }
}

/** Runs one `screening` subcommand against `db` with the screening variables of `env`; returns the exit code. */
export async function runScreeningCommand(db: Db, argv: string[], env: Record<string, string | undefined>, deps: ReviewDeps = {}): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        list: { type: 'string' }, dir: { type: 'string' }, url: { type: 'string' }, name: { type: 'string' }, kind: { type: 'string' },
        country: { type: 'string' }, dob: { type: 'string' }, id: { type: 'string' }, json: { type: 'boolean', default: false },
        operator: { type: 'string' }, reason: { type: 'string' }, status: { type: 'string' },
      },
    });
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const { positionals: [sub, ...rest], values: v } = parsed;
  if (sub === 'review') return runReviewCommand(db, rest, v, deps);
  const out = (json: unknown, text: string) => console.log(v.json ? JSON.stringify(json, null, 2) : text);
  if (sub === 'load') {
    const module = v.list ? screeningListModule(v.list) : undefined;
    if (!module || (!v.dir && !v.url && module.files.length > 0)) {
      console.error(`${module ? 'pass --dir or --url' : `unknown or missing --list ${v.list ?? ''}`}\n${USAGE}`);
      return 2;
    }
    const source = { ...module.source(env), dir: v.dir, url: v.dir ? undefined : v.url };
    const r = await refreshList(db, module, source);
    if (!r.ok) {
      if (v.json) console.log(JSON.stringify({ list: module.id, loaded: false, error: r.error }, null, 2));
      else console.error(`list ${module.id} not loaded: ${r.error} (the last good version stays current)`);
      return 1;
    }
    const ver = r.version;
    await recordAuditEvent(db, {
      businessId: null, environment: null, ...operatorActor(), action: 'screening.list_loaded', objectType: 'screening_list', objectId: ver.id, before: null,
      after: { list: ver.list, sha256: ver.sha256, entry_count: ver.entryCount, source: ver.source, changed: r.changed },
    });
    const json = {
      list: ver.list, loaded: true, changed: r.changed, version_id: ver.id, sha256: ver.sha256, entry_count: ver.entryCount, published_at: iso(ver.publishedAt),
      source: ver.source, loaded_at: iso(ver.loadedAt), checked_at: iso(ver.checkedAt),
    };
    out(json, `list ${ver.list}: ${ver.entryCount} entries, version ${ver.id} (sha256 ${ver.sha256.slice(0, 12)}…)${r.changed ? '' : ', content unchanged'} from ${ver.source}`);
    return 0;
  }
  if (sub === 'check' || sub === 'status') {
    let config;
    try {
      config = screeningConfig({ ...env, ...(v.list ? { SCREENING_LISTS: v.list } : {}) });
    } catch (err) {
      console.error((err as Error).message);
      return 2;
    }
    const service = new ScreeningService(db, config);
    await service.sync();
    if (sub === 'status') {
      const s = service.status();
      out(renderScreeningStatus(s), [`screening ${s.available ? 'available' : 'UNAVAILABLE'}`, ...s.reasons, ...s.lists.map((l) => `${l.list}: ${l.versionId ?? 'not loaded'}${l.ageSeconds === null ? '' : `, fetched ${Math.round(l.ageSeconds / 60)} min ago (max ${l.maxAgeHours} h)`}`)].join('\n'));
      return s.available ? 0 : 1;
    }
    if (!v.name || (v.kind && v.kind !== 'individual' && v.kind !== 'entity')) {
      console.error(USAGE);
      return 2;
    }
    const r = await service.screen(
      { name: v.name, kind: v.kind as 'individual' | 'entity' | undefined, country: v.country, dateOfBirth: v.dob, identifiers: v.id ? [{ value: v.id }] : undefined },
      { reference: 'admin' },
    );
    const text =
      r.outcome === 'unavailable'
        ? `unavailable: ${r.reasons.join('; ')}`
        : r.outcome === 'clear'
          ? 'clear'
          : [r.outcome, ...r.hits.map((h) => `${h.score.toFixed(4)}  ${h.list} ${h.entryId}  ${h.entryName}${h.matchedName !== h.entryName ? ` (as "${h.matchedName}")` : ''}  [${h.programs.join(', ')}]  ${h.reason}`)].join('\n');
    out(renderScreeningResult(r), text);
    return r.outcome === 'unavailable' ? 1 : 0;
  }
  console.error(USAGE);
  return 2;
}

/** `npm run admin -- screening ...`: opens the database as admin.ts does and runs {@link runScreeningCommand}. */
export async function runScreeningCli(argv: string[]): Promise<number> {
  const config = loadConfig();
  const target: DbTarget = config.DATABASE_URL ? { url: config.DATABASE_URL } : { pgliteDir: resolve(join(config.DATA_DIR)) };
  let db = await openDb(target, { poolSize: 1 });
  try {
    await migrate(db);
    const role = databaseRole(config.DATABASE_ROLE, 'payouts_admin');
    if (role) db = await actAsRole(db, target, role, { poolSize: 1 });
    let temporal: TemporalClient | undefined;
    const connect = async () => (temporal ??= await connectTemporal(temporalConnectionOptions(config), config.TEMPORAL_NAMESPACE));
    try {
      return await runScreeningCommand(db, argv, process.env, { publicUrl: config.publicUrl, temporal: connect });
    } finally {
      await temporal?.connection.close();
    }
  } finally {
    await db.destroy();
  }
}
