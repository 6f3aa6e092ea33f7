/**
 * Saved recipients (spec "Recipient", Surface A `/recipients`), scoped to the caller's business and
 * environment (another tenant's id is a 404). Details stored normalised and unmasked; deletion is soft.
 */
import type { Insertable, Selectable } from 'kysely';
import type { RecipientType } from '../domain/channels';
import { ApiError, notFound, validationError } from '../domain/errors';
import { newId } from '../domain/ids';
import { maskRecipientDetails, type Receivability, receivability, validateRecipientDetails } from '../domain/recipients';
import { emitEvent } from './events';
import type { RecipientsTable } from '../db/tables/catalog';
import { type Page, paginate } from './paging';
import type { Caller, Core } from './context';
import type { DbOrTx } from '../db/schema';
import { isUniqueViolation } from '../db/errors';
import { recipientCorrectedEvent } from '../domain/domain-events';
import { scoped } from './tenancy';
import { identityChanged, prepareRecipientScreening, saveRecipientScreening, screenRecipient } from './screening/recipient-screening';

export type RecipientKind = 'individual' | 'business';

/** A saved recipient; `details` normalised and UNMASKED (mask it on output). */
export interface RecipientRecord {
  id: string;
  type: RecipientType;
  country: string | null;
  currency: string | null;
  name: string | null;
  kind: RecipientKind | null;
  externalId: string | null;
  details: Record<string, unknown>;
  status: 'ready' | 'needs_fields';
  missingFields: string[];
  /** Catalog only: a paused channel stays listed. */
  channels: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** Optional descriptive fields; on update, null clears one. */
export interface RecipientFields {
  country?: string | null;
  currency?: string | null;
  name?: string | null;
  kind?: RecipientKind | null;
  externalId?: string | null;
}

export interface CreateRecipientInput extends RecipientFields {
  type: RecipientType;
  details: Record<string, unknown>;
}

/** `details`, when given, replaces the stored type object; changing `type` needs `details`. */
export interface UpdateRecipientInput extends RecipientFields {
  type: RecipientType;
  details?: Record<string, unknown>;
}

export interface ListRecipientsQuery {
  type?: RecipientType;
  country?: string;
  externalId?: string;
  limit: number;
  cursor?: string;
}

const MASK = '••••';

const upper = (v: string | null | undefined) => (typeof v === 'string' ? v.trim().toUpperCase() || null : (v ?? null));
const trimmed = (v: string | null | undefined) => (typeof v === 'string' ? v.trim() || null : (v ?? null));

export function recipientFromRow(row: Selectable<RecipientsTable>): RecipientRecord {
  return {
    id: row.id,
    type: row.type as RecipientType,
    country: row.country,
    currency: row.currency,
    name: row.name,
    kind: row.kind,
    externalId: row.external_id,
    details: row.details ?? {},
    status: row.status,
    missingFields: row.missing_fields ?? [],
    channels: row.channels ?? [],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Refuses masked values sent back, validates, and reconciles `kind` with a bank channel's `recipient_kind` (400 on conflict). */
function evaluate(
  type: RecipientType,
  details: Record<string, unknown>,
  fields: { country: string | null; currency: string | null; kind: RecipientKind | null },
) {
  for (const [key, value] of Object.entries(details)) {
    if (typeof value === 'string' && value.includes(MASK)) {
      throw validationError(`${type}.${key}`, `${type}.${key} is a masked value; send the full value`);
    }
  }
  const v = validateRecipientDetails(type, details, {
    ...(fields.country ? { country: fields.country } : {}),
    ...(fields.currency ? { currency: fields.currency } : {}),
    ...(fields.kind ? { kind: fields.kind } : {}),
  });
  let kind = fields.kind;
  const rk = v.details.recipient_kind;
  if (rk === 'individual' || rk === 'business') {
    if (kind && kind !== rk) {
      throw validationError(`${type}.recipient_kind`, `${type}.recipient_kind is '${rk}' but kind is '${kind}'`);
    }
    kind = rk;
  }
  return { ...v, kind };
}

/** The one insert of `recipients` (this module owns the table); a unique violation propagates. */
export async function insertRecipientRow(db: DbOrTx, row: Insertable<RecipientsTable>): Promise<Selectable<RecipientsTable>> {
  return db.insertInto('recipients').values(row).returningAll().executeTakeFirstOrThrow();
}

/** `POST /recipients`. Throws 400 validation_error (param e.g. `bank_account.clabe`) or 422 recipient_not_ready (also a confirmed sanctions match, docs/screening.md "Saved recipients"). */
export async function createRecipient(core: Core, caller: Caller, input: CreateRecipientInput): Promise<RecipientRecord> {
  const country = upper(input.country);
  const currency = upper(input.currency);
  const v = evaluate(input.type, input.details, { country, currency, kind: input.kind ?? null });
  const now = core.now();
  const id = newId('rcp', now.getTime());
  const screening = await screenRecipient(core, caller.environment, id, { name: trimmed(input.name), kind: v.kind, country, details: v.details });
  const row = await insertRecipientRow(core.db, {
      id,
      business_id: caller.businessId,
      environment: caller.environment,
      type: input.type,
      country,
      currency,
      name: trimmed(input.name),
      kind: v.kind,
      external_id: trimmed(input.externalId),
      details: JSON.stringify(v.details),
      status: v.status,
      missing_fields: JSON.stringify(v.missingFields),
      channels: JSON.stringify(v.channels),
      deleted_at: null,
      created_at: now,
      updated_at: now,
  });
  await saveRecipientScreening(core.db, { recipientId: id, businessId: caller.businessId, environment: caller.environment, screenedAt: now }, screening);
  return recipientFromRow(row);
}

/** `GET /recipients/{id}`; 404 not_found if absent, deleted or another tenant's. */
export async function getRecipient(core: Core, caller: Caller, id: string): Promise<RecipientRecord> {
  const row = await scoped(core.db, caller)
    .selectFrom('recipients')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw notFound('recipient', id);
  return recipientFromRow(row);
}

/** `GET /recipients`: live recipients, newest first; 400 validation_error (param `cursor`) for a foreign cursor. */
export async function listRecipients(
  core: Core,
  caller: Caller,
  query: ListRecipientsQuery,
): Promise<Page<RecipientRecord>> {
  let q = scoped(core.db, caller)
    .selectFrom('recipients')
    .selectAll()
    .where('deleted_at', 'is', null);
  if (query.type) q = q.where('type', '=', query.type);
  if (query.country) q = q.where('country', '=', query.country.trim().toUpperCase());
  if (query.externalId) q = q.where('external_id', '=', query.externalId);
  const page = await paginate(q, 'id', { limit: query.limit, cursor: query.cursor });
  return { data: page.rows.map(recipientFromRow), nextCursor: page.nextCursor };
}

/**
 * `PATCH /recipients/{id}`: applies fields, re-validates and recomputes readiness. Throws 404, the
 * errors of {@link createRecipient}, and 409 external_id_taken for a contact recipient's duplicate id.
 */
export async function updateRecipient(
  core: Core,
  caller: Caller,
  id: string,
  input: UpdateRecipientInput,
): Promise<RecipientRecord> {
  await prepareRecipientScreening(core, caller.environment);
  return core.db.transaction().execute(async (trx) => {
    const row = await scoped(trx, caller)
      .selectFrom('recipients')
      .selectAll()
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw notFound('recipient', id);
    const current = recipientFromRow(row);

    const pick = <T>(given: T | undefined, stored: T) => (given === undefined ? stored : given);
    const country = upper(pick(input.country, current.country));
    const currency = upper(pick(input.currency, current.currency));
    const kind = pick(input.kind, current.kind);
    let details: Record<string, unknown>;
    if (input.details !== undefined) {
      details = input.details;
    } else if (input.type !== current.type) {
      throw validationError(input.type, `Changing type to ${input.type} needs the ${input.type} object`);
    } else {
      details = { ...current.details };
      if (input.kind !== undefined && input.kind !== current.kind && details.recipient_kind === current.kind) {
        delete details.recipient_kind;
      }
    }
    const v = evaluate(input.type, details, { country, currency, kind });
    const now = core.now();
    const externalId = trimmed(pick(input.externalId, current.externalId));
    const identity = { name: trimmed(pick(input.name, current.name)), kind: v.kind, country, details: v.details };
    if (identityChanged(current, identity)) {
      const screening = await screenRecipient(core, caller.environment, id, identity, { db: trx });
      await saveRecipientScreening(trx, { recipientId: id, businessId: caller.businessId, environment: caller.environment, screenedAt: now }, screening);
    }
    const updated = await trx
      .updateTable('recipients')
      .set({
        type: input.type,
        country,
        currency,
        name: trimmed(pick(input.name, current.name)),
        kind: v.kind,
        external_id: externalId,
        details: JSON.stringify(v.details),
        status: v.status,
        missing_fields: JSON.stringify(v.missingFields),
        channels: JSON.stringify(v.channels),
        updated_at: now,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch((err: unknown) => {
        if (isUniqueViolation(err)) {
          throw new ApiError(409, 'external_id_taken', `Another recipient already has external_id '${externalId}'`, 'external_id');
        }
        throw err;
      });
    return recipientFromRow(updated);
  });
}

/** `DELETE /recipients/{id}` (soft); 404 like {@link getRecipient}. */
export async function deleteRecipient(core: Core, caller: Caller, id: string): Promise<void> {
  const now = core.now();
  const res = await scoped(core.db, caller)
    .updateTable('recipients')
    .set({ deleted_at: now, updated_at: now })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!res.numUpdatedRows) throw notFound('recipient', id);
}

/** `GET /recipients/check` (spec "Receivability"); 400 validation_error, param `number` / `address` / `type`. */
export function checkRecipient(
  _core: Core,
  _caller: Caller,
  input: { type: 'phone' | 'email'; number?: string; address?: string },
): Receivability {
  return receivability(input);
}


/**
 * Applies a bank's correction (ACH notification of change, docs/rails.md "ACH"): `fields` replace, or
 * `needsField` asks again. Writes recipient and `recipient.updated` once per `correctionId`. Returns
 * null when deleted or not a bank account.
 */
export async function correctRecipientFromBank(
  core: Core,
  recipientId: string,
  correction: { fields: Record<string, string> } | { needsField: string },
  source: { correctionId: string; changeCode: string; payoutId: string },
): Promise<RecipientRecord | null> {
  return core.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('recipients').selectAll().where('id', '=', recipientId).where('deleted_at', 'is', null).forUpdate().executeTakeFirst();
    if (!row || row.type !== 'bank_account') return null;
    const current = recipientFromRow(row);
    const now = core.now();
    let set: { details: string; status: 'ready' | 'needs_fields'; missing_fields: string; channels: string };
    if ('fields' in correction) {
      const v = evaluate(current.type, { ...current.details, ...correction.fields }, { country: current.country, currency: current.currency, kind: current.kind });
      set = { details: JSON.stringify(v.details), status: v.status, missing_fields: JSON.stringify(v.missingFields), channels: JSON.stringify(v.channels) };
    } else {
      const missing = [...new Set([...current.missingFields, correction.needsField])];
      set = { details: JSON.stringify(current.details), status: 'needs_fields', missing_fields: JSON.stringify(missing), channels: JSON.stringify(current.channels) };
    }
    const updated = recipientFromRow(await trx.updateTable('recipients').set({ ...set, updated_at: now }).where('id', '=', recipientId).returningAll().executeTakeFirstOrThrow());
    const value = {
      ...updated,
      details: maskRecipientDetails(updated.type, updated.details),
      correction: { source: 'notification_of_change' as const, changeCode: source.changeCode, payoutId: source.payoutId },
    };
    await emitEvent(trx, recipientCorrectedEvent({ businessId: row.business_id, environment: row.environment }, value, source.correctionId));
    return updated;
  });
}
