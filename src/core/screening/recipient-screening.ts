/**
 * Saved recipients' screening (docs/screening.md "Saved recipients"); owner of `recipient_screenings`.
 * A recipient is screened on create and on update of its name or identity, in the request (in
 * memory plus inserts), and again whenever a list version changes ({@link rescreenRecipients}).
 */
import type { Environment } from '../../db/tables/platform';
import type { DbOrTx } from '../../db/schema';
import { ApiError } from '../../domain/errors';
import type { Core } from '../context';
import { screeningRescreenedRecipients } from './metrics';
import type { ListVersionRef, ScreeningResult, ScreeningSubject } from './service';

/** The fields of a recipient that screening reads. */
export interface RecipientIdentity {
  name: string | null;
  kind: 'individual' | 'business' | null;
  country: string | null;
  details: Record<string, unknown>;
}

/** A saved recipient's last screening as the views show it; null when never screened (no name). */
export interface RecipientScreeningStatus {
  outcome: 'clear' | 'potential_match' | 'confirmed_match' | 'unavailable';
  screenedAt: Date;
}

const IDENTIFIER_FIELDS = ['national_id', 'tax_id', 'id_document_number'] as const;

/** The screening subject of a recipient: its name (else the bank holder's name), kind, country, date of birth, identifiers; null without a name. */
export function recipientSubject(r: RecipientIdentity): ScreeningSubject | null {
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
  const name = str(r.name) ?? str(r.details.holder_name);
  if (!name) return null;
  const identifiers = IDENTIFIER_FIELDS.flatMap((f) => (str(r.details[f]) ? [{ type: f, value: str(r.details[f])! }] : []));
  return {
    name,
    ...(r.kind ? { kind: r.kind === 'business' ? 'entity' : 'individual' } : {}),
    ...(r.country ? { country: r.country } : {}),
    ...(str(r.details.date_of_birth) ? { dateOfBirth: str(r.details.date_of_birth) } : {}),
    ...(identifiers.length > 0 ? { identifiers } : {}),
  };
}

/** Whether an update changed what screening reads (name, kind, country, details). */
export function identityChanged(before: RecipientIdentity, after: RecipientIdentity): boolean {
  return JSON.stringify(recipientSubject(before)) !== JSON.stringify(recipientSubject(after));
}

/** Builds the environment's list indexes before a transaction that screens (the first use reads the entries). */
export async function prepareRecipientScreening(core: Core, environment: Environment): Promise<void> {
  await core.screening[environment].warm();
}

/**
 * Screens a recipient about to be saved (reference: its id); `db` joins the caller's transaction.
 * Throws 422 `recipient_not_ready` (param `param`) on a confirmed match; null when it has no name.
 */
export async function screenRecipient(
  core: Core,
  environment: Environment,
  recipientId: string,
  identity: RecipientIdentity,
  opts: { db?: DbOrTx; param?: string } = {},
): Promise<ScreeningResult | null> {
  const subject = recipientSubject(identity);
  if (!subject) return null;
  const result = await core.screening[environment].screen(subject, { reference: recipientId, db: opts.db });
  if (result.outcome === 'confirmed_match') {
    throw new ApiError(
      422,
      'recipient_not_ready',
      `The recipient cannot be saved: sanctions screening confirmed a match (screening ${result.screeningId})`,
      opts.param ?? 'name',
    );
  }
  return result;
}

/** `list:version_id` of each version used, sorted and comma-joined. */
export const versionsKey = (versions: readonly Pick<ListVersionRef, 'list' | 'versionId'>[]) =>
  versions.map((v) => `${v.list}:${v.versionId}`).sort().join(',');

/** Stores (or replaces) a recipient's last screening; a null result (no name) deletes it. */
export async function saveRecipientScreening(
  db: DbOrTx,
  r: { recipientId: string; businessId: string; environment: Environment; screenedAt: Date },
  result: ScreeningResult | null,
): Promise<void> {
  if (!result) {
    await db.deleteFrom('recipient_screenings').where('recipient_id', '=', r.recipientId).execute();
    return;
  }
  const row = {
    business_id: r.businessId,
    environment: r.environment,
    screening_id: result.screeningId,
    outcome: result.outcome,
    versions_key: versionsKey(result.listVersions),
    screened_at: r.screenedAt,
  };
  await db
    .insertInto('recipient_screenings')
    .values({ recipient_id: r.recipientId, ...row })
    .onConflict((oc) => oc.column('recipient_id').doUpdateSet(row))
    .execute();
}

/** The last screening of each of `ids` (absent: never screened). */
export async function recipientScreenings(db: DbOrTx, ids: readonly string[]): Promise<Map<string, RecipientScreeningStatus>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('recipient_screenings').select(['recipient_id', 'outcome', 'screened_at']).where('recipient_id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.recipient_id, { outcome: r.outcome as RecipientScreeningStatus['outcome'], screenedAt: new Date(r.screened_at) }]));
}

/** What {@link rescreenRecipients} did: recipients screened, by outcome, and how long it took. */
export interface RescreenReport {
  screened: number;
  outcomes: Record<string, number>;
  ms: number;
}

/**
 * Screens again every saved recipient of `environment` whose last screening used other list versions,
 * answered `unavailable`, or is missing (docs/screening.md "Saved recipients"): pages of `pageSize`
 * (default 500) in id order; one screening per recipient. Does nothing while screening is unavailable.
 */
export async function rescreenRecipients(core: Core, environment: Environment, opts: { pageSize?: number } = {}): Promise<RescreenReport> {
  const started = performance.now();
  const service = core.screening[environment];
  const report: RescreenReport = { screened: 0, outcomes: {}, ms: 0 };
  if (!service.status().available) return report;
  const key = versionsKey(service.versions());
  let after = '';
  for (;;) {
    const page = await core.db
      .selectFrom('recipients as r')
      .leftJoin('recipient_screenings as s', 's.recipient_id', 'r.id')
      .select(['r.id', 'r.business_id', 'r.name', 'r.kind', 'r.country', 'r.details'])
      .where('r.environment', '=', environment)
      .where('r.deleted_at', 'is', null)
      .where('r.id', '>', after)
      .where((eb) => eb.or([eb('s.recipient_id', 'is', null), eb('s.versions_key', '<>', key), eb('s.outcome', '=', 'unavailable')]))
      .orderBy('r.id')
      .limit(opts.pageSize ?? 500)
      .execute();
    if (page.length === 0) break;
    for (const r of page) {
      const identity: RecipientIdentity = { name: r.name, kind: r.kind, country: r.country, details: r.details ?? {} };
      const subject = recipientSubject(identity);
      if (!subject) continue;
      const result = await service.screen(subject, { reference: r.id });
      await saveRecipientScreening(core.db, { recipientId: r.id, businessId: r.business_id, environment, screenedAt: core.now() }, result);
      report.screened++;
      report.outcomes[result.outcome] = (report.outcomes[result.outcome] ?? 0) + 1;
      screeningRescreenedRecipients.inc({ outcome: result.outcome });
    }
    after = page[page.length - 1]!.id;
  }
  report.ms = Math.round(performance.now() - started);
  return report;
}
