/** Payment links (spec "PaymentLink"; docs/getting-paid.md "Payment links", including the `ready` rules). */
import { type Page, paginate } from '../paging';
import type { DbOrTx, Environment } from '../../db/schema';
import { validationError } from '../../domain/errors';
import { PAYMENT_METHOD_TYPES, type PaymentMethodType } from '../../domain/funding';
import { newId, randomToken } from '../../domain/ids';
import type { Caller, Core } from '../context';
import { cryptoDepositsWatched } from '../funding/crypto-addresses';
import { cardProcessorFor } from '../cards/processor';
import { type PaymentLink, paymentLinkUrl } from '../../domain/payment-links';
import type { Selectable } from 'kysely';
import type { PaymentLinksTable } from '../../db/tables/funding';
import { ownedOr404, scoped } from '../tenancy';

export type PaymentLinkRow = Selectable<PaymentLinksTable>;

export function toPaymentLink(row: PaymentLinkRow, ready: Record<PaymentMethodType, boolean>, publicUrl: string): PaymentLink {
  return {
    id: row.id,
    name: row.name,
    url: paymentLinkUrl(publicUrl, row.token),
    methods: (row.methods as PaymentMethodType[]).map((type) => ({ type, ready: ready[type] })),
    published: row.published,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export const MAX_LINK_NAME = 200;

/**
 * Whether each method can take money now (docs/getting-paid.md); without `config`, crypto and card
 * are not ready. Card is ready in live when a live card processor is configured ("Card payments");
 * the sandbox has no card form on payment pages.
 */
export async function methodReadiness(db: DbOrTx, businessId: string, environment: Environment, config?: Core['config']): Promise<Record<PaymentMethodType, boolean>> {
  const va = await db
    .selectFrom('virtual_accounts')
    .select('id')
    .where('business_id', '=', businessId)
    .where('environment', '=', environment)
    .where('status', '=', 'active')
    .limit(1)
    .executeTakeFirst();
  return {
    bank_transfer: !!va,
    card: !!config && environment === 'live' && cardProcessorFor(config) !== null,
    crypto: !!config && cryptoDepositsWatched(config, environment),
  };
}

function parseName(v: unknown): string {
  if (typeof v !== 'string' || !v.trim()) throw validationError('name', 'name is required');
  if (v.length > MAX_LINK_NAME) throw validationError('name', `name must be at most ${MAX_LINK_NAME} characters`);
  return v.trim();
}

function parseMethods(v: unknown): PaymentMethodType[] {
  if (!Array.isArray(v) || v.length === 0) throw validationError('methods', `methods must be a non-empty array of ${PAYMENT_METHOD_TYPES.join(', ')}`);
  const out: PaymentMethodType[] = [];
  v.forEach((m, i) => {
    if (typeof m !== 'string' || !(PAYMENT_METHOD_TYPES as readonly string[]).includes(m)) {
      throw validationError(`methods.${i}`, `methods.${i} must be one of ${PAYMENT_METHOD_TYPES.join(', ')}`);
    }
    if (!out.includes(m as PaymentMethodType)) out.push(m as PaymentMethodType);
  });
  return out;
}

function parsePublished(v: unknown): boolean {
  if (typeof v !== 'boolean') throw validationError('published', 'published must be true or false');
  return v;
}

/** POST /payment-links; `published` defaults to true. Errors: 400 validation_error (`name`, `methods.<i>`, `published`). */
export async function createPaymentLink(
  core: Core,
  caller: Caller,
  input: { name: unknown; methods: unknown; published?: unknown },
): Promise<PaymentLink> {
  const name = parseName(input.name);
  const methods = parseMethods(input.methods);
  const published = input.published === undefined ? true : parsePublished(input.published);
  const now = core.now();
  const row = await core.db
    .insertInto('payment_links')
    .values({
      id: newId('plink'),
      business_id: caller.businessId,
      environment: caller.environment,
      name,
      methods: JSON.stringify(methods) as any,
      published,
      token: randomToken(18),
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toPaymentLink(row, await methodReadiness(core.db, caller.businessId, caller.environment, core.config), core.config.publicUrl);
}

/** 404 not_found naming `param`. */
export async function getPaymentLinkRow(db: DbOrTx, caller: Caller, id: string, param = 'id'): Promise<PaymentLinkRow> {
  return ownedOr404(db, caller, 'payment_links', id, 'payment link', param);
}

export async function getPaymentLink(core: Core, caller: Caller, id: string): Promise<PaymentLink> {
  const row = await getPaymentLinkRow(core.db, caller, id);
  return toPaymentLink(row, await methodReadiness(core.db, caller.businessId, caller.environment, core.config), core.config.publicUrl);
}

export async function listPaymentLinks(core: Core, caller: Caller, q: { limit: number; cursor?: string }): Promise<Page<PaymentLink>> {
  const query = scoped(core.db, caller)
    .selectFrom('payment_links')
    .selectAll();
  const page = await paginate(query, 'id', q);
  const ready = await methodReadiness(core.db, caller.businessId, caller.environment, core.config);
  return { data: page.rows.map((r) => toPaymentLink(r, ready, core.config.publicUrl)), nextCursor: page.nextCursor };
}

/** PATCH /payment-links/{id}: at least one field; unpublishing 404s its pages at once. Errors: 400, 404. */
export async function updatePaymentLink(
  core: Core,
  caller: Caller,
  id: string,
  input: { name?: unknown; methods?: unknown; published?: unknown },
): Promise<PaymentLink> {
  const set: { name?: string; methods?: string; published?: boolean; updated_at: Date } = { updated_at: core.now() };
  if (input.name !== undefined) set.name = parseName(input.name);
  if (input.methods !== undefined) set.methods = JSON.stringify(parseMethods(input.methods));
  if (input.published !== undefined) set.published = parsePublished(input.published);
  if (Object.keys(set).length === 1) throw validationError(null, 'Give at least one of name, methods, published');
  await getPaymentLinkRow(core.db, caller, id);
  const row = await scoped(core.db, caller)
    .updateTable('payment_links')
    .set(set as any)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toPaymentLink(row, await methodReadiness(core.db, caller.businessId, caller.environment, core.config), core.config.publicUrl);
}

/** The published link behind a page token (any business), or undefined. */
export async function findPublishedLinkByToken(db: DbOrTx, token: string): Promise<PaymentLinkRow | undefined> {
  return db.selectFrom('payment_links').selectAll().where('token', '=', token).where('published', '=', true).executeTakeFirst();
}
