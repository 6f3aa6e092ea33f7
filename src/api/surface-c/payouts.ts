/**
 * Surface C payouts (spec "Surface C"; choices in docs/surface-c.md): a thin adapter, a Surface C
 * payout being a core `claim_link` payout of `amount` US dollars whose recipient is notified.
 * A batch holds at most {@link MAX_BATCH_PAYOUTS} entries, all or nothing.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Caller, Core } from '../../core/context';
import { type ContactRecipient, getContactRecipient } from '../../core/contacts';
import {
  createNotifiedPayouts,
  NOTIFICATION_CHANNELS,
  notificationsByPayout,
  type NotifiedPayoutRequest,
  validateNotificationRequest,
} from '../../core/notifications';
import { getPayout, listPayouts, type PayoutRequest } from '../../core/payouts';
import { renderPayoutFailure, renderPayoutFees } from '../../wire/surface-a/payouts';
import type { Payout } from '../../domain/payouts';
import { renderPayoutNotification } from '../../wire/surface-a/notifications';
import type { PayoutNotification } from '../../domain/notifications';
import { ApiError, validationError } from '../../domain/errors';
import { amountInputPattern, formatAmount } from '../../domain/money';
import { amountTypeError } from '../errors';
import { CLAIM_LINK_25 } from '../examples';
import { coreStatusesOf, SURFACE_C_PAYOUT_STATUSES, surfaceCPayoutStatus } from '../../domain/surface-c';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import type { AppEnv } from '../types';
import {
  AUTH_ERRORS,
  DateTimeSchema,
  errorResponses,
  IDEMPOTENCY_DESCRIPTION,
  idempotencyHeaders,
  idParam,
  jsonContent,
  listEnvelope,
  pageQuery,
} from './schemas';

/** Most entries in one POST /payouts/batch (larger batches: Surface A disbursements). */
export const MAX_BATCH_PAYOUTS = 100;
/** The one currency of Surface C payouts (the claim-link channel's). */
export const SURFACE_C_CURRENCY = 'USD';

const Amount = z.string({ error: amountTypeError }).openapi({ description: 'Decimal string: 1 to 12 digits, optionally a point and 1 or 2 digits', pattern: amountInputPattern(2), example: '25.00' });

const NotificationSettings = z
  .object({
    send: z.boolean().optional().openapi({ description: 'Notify the recipient (default true when delivery_channel is given)' }),
    language: z.string().max(35).optional().openapi({ description: 'Template language: en, es or pt (tags like es-MX accepted); fallback: the recipient\'s country, then en', example: 'es' }),
  })
  .openapi('PayoutNotificationSettings');

const CreatePayoutBody = z
  .object({
    recipient_id: z.string().min(1).optional().openapi({ description: 'A recipient from POST /recipients; or give email, or destination', example: 'rcp_01k0000000000000000000000' }),
    email: z.string().optional().openapi({ description: 'The recipient\'s e-mail (instead of recipient_id)', example: 'ana@example.com' }),
    amount: Amount,
    currency: z.string().openapi({ description: 'USD (the only currency of Surface C payouts)', example: 'USD' }),
    delivery_channel: z.enum(NOTIFICATION_CHANNELS).optional().openapi({ description: 'How the recipient is notified' }),
    destination: z.string().optional().openapi({ description: 'Phone number (E.164) for whatsapp/sms, e-mail for email; default: the recipient\'s', example: '+525512345678' }),
    notification: NotificationSettings.optional(),
    reference: z.string().optional().openapi({ description: 'Extension: your reference, at most 140 characters' }),
    message: z.string().optional().openapi({ description: 'Extension: a note shown on the claim page, at most 500 characters' }),
  })
  .openapi('PayoutCreate');
/** Body of POST /payouts (one entry of POST /payouts/batch). */
export type CreatePayoutBody = z.infer<typeof CreatePayoutBody>;

const BatchBody = z
  .object({ payouts: z.array(CreatePayoutBody).min(1).max(MAX_BATCH_PAYOUTS).openapi({ description: `1 to ${MAX_BATCH_PAYOUTS} payouts; all are created or none` }) })
  .openapi('PayoutBatchCreate');

const NotificationStateSchema = z
  .object({
    channel: z.enum(NOTIFICATION_CHANNELS),
    destination: z.string().openapi({ description: 'Masked', example: '+52••••••5678' }),
    language: z.enum(['en', 'es', 'pt']),
    status: z.enum(['pending', 'sent', 'delivered', 'failed', 'canceled']).openapi({
      description: 'pending, sent (a provider accepted it), delivered (the provider reported it delivered), failed (see failure_code), canceled (docs/notifications.md)',
    }),
    sent_at: DateTimeSchema.nullable(),
    delivered_at: DateTimeSchema.nullable().openapi({ description: 'When the provider reported the message delivered' }),
    error: z.string().nullable(),
    failure_code: z.string().nullable().openapi({ description: 'Why it failed: a provider code (30003, 21610, 131026, smtp_550), opted_out (the number replied STOP), not_delivered', example: 'opted_out' }),
  })
  .openapi('PayoutNotification');

const FeesSchema = z
  .object({
    provider: z.string().openapi({ example: CLAIM_LINK_25.fees.provider }),
    service: z.string().openapi({ example: CLAIM_LINK_25.fees.service }),
    fx_spread: z.string().openapi({ example: CLAIM_LINK_25.fees.fx_spread }),
    total: z.string().openapi({ example: CLAIM_LINK_25.fees.total }),
    currency: z.string().openapi({ example: 'USDC' }),
  })
  .openapi('PayoutFees', { description: 'Fees debited on top of the amount (USDC)' });

/** Surface C Payout. */
export const PayoutSchema = z
  .object({
    id: z.string().openapi({ example: 'po_01k0000000000000000000000' }),
    object: z.literal('payout'),
    status: z.enum(SURFACE_C_PAYOUT_STATUSES),
    amount: z.string().openapi({ example: '25.00' }),
    currency: z.string().openapi({ example: 'USD' }),
    fees: FeesSchema,
    recipient_id: z.string().nullable(),
    recipient: z.object({ type: z.string(), phone_number: z.string().nullable(), email: z.string().nullable() }),
    delivery_channel: z.enum(NOTIFICATION_CHANNELS).nullable(),
    notification: NotificationStateSchema.nullable(),
    claim_url: z.string().nullable().openapi({ description: 'The claim link the recipient opens to withdraw' }),
    claim_expires_at: DateTimeSchema.nullable(),
    payout_method: z.string().nullable().openapi({ description: 'How the recipient chose to withdraw (bank_transfer, mobile_money, wallet)' }),
    reference: z.string().nullable(),
    message: z.string().nullable(),
    failure: z
      .object({
        code: z.string(),
        message: z.string(),
        retryable: z.boolean().optional().openapi({ description: 'Extension (rail failures): whether a new payout to the same destination may succeed.' }),
        rail_reason_code: z.string().optional().openapi({ description: "Extension (rail failures): the rail's own reason code, e.g. AC01 (ISO 20022).", example: 'AC01' }),
      })
      .nullable(),
    created_at: DateTimeSchema,
    completed_at: DateTimeSchema.nullable(),
  })
  .openapi('Payout');
/** A Surface C payout on the wire. */
export type WireSurfaceCPayout = z.infer<typeof PayoutSchema>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The Surface C form of a core payout (the domain object) and its notification. */
export function renderSurfaceCPayout(p: Payout, n: PayoutNotification | null): WireSurfaceCPayout {
  const r: Record<string, unknown> = { type: p.recipient.type, ...p.recipient.details };
  return {
    id: p.id,
    object: 'payout',
    status: surfaceCPayoutStatus(p.status),
    amount: formatAmount(p.destination.minor, p.destination.currency),
    currency: p.destination.currency,
    fees: renderPayoutFees(p),
    recipient_id: p.recipientId,
    recipient: {
      type: String(r.type),
      phone_number: typeof r.number === 'string' ? r.number : null,
      email: r.type === 'email' && typeof r.address === 'string' ? r.address : null,
    },
    delivery_channel: n ? n.channel : null,
    notification: n ? renderPayoutNotification(n) : null,
    claim_url: p.claim?.url ?? null,
    claim_expires_at: p.claim ? iso(p.claim.expiresAt) : null,
    payout_method: p.claim?.method ?? null,
    reference: p.reference,
    message: p.message,
    failure: renderPayoutFailure(p),
    created_at: p.createdAt.toISOString(),
    completed_at: iso(p.deliveredAt),
  };
}

/** Core param -> Surface C param (the rest keep their names). */
const CORE_PARAMS: Record<string, string | null> = {
  destination_amount: 'amount',
  source_amount: 'amount',
  'recipient.number': 'destination',
  recipient: 'recipient_id',
  channel: null,
};

/** Renames a core error's param (and its mention in the message) to Surface C's, keeping the `payouts.<i>.` prefix. */
function toSurfaceC(e: ApiError, body: (i: number | null) => CreatePayoutBody | undefined): ApiError {
  if (!e.param) return e;
  const m = /^(payouts\.(\d+)\.)?(.*)$/.exec(e.param);
  if (!m) return e;
  const [, prefix = '', index, name] = m;
  let mapped: string | null | undefined = CORE_PARAMS[name];
  if (name === 'recipient.address') mapped = body(index === undefined ? null : Number(index))?.email !== undefined ? 'email' : 'destination';
  if (mapped === undefined) return e;
  const param = mapped === null ? null : `${prefix}${mapped}`;
  const message = mapped === null ? e.message : e.message.replace(name, mapped);
  return new ApiError(e.status, e.code, message, param, e.details);
}

/**
 * One Surface C payout request in core form: the claim-link payout and its notification (see the
 * file header). `pre` prefixes params (`payouts.3.`). Throws 400 validation_error (currency,
 * email, delivery_channel, destination, recipient_id) and 404 not_found (recipient_id).
 */
async function toCoreRequest(core: Core, caller: Caller, b: CreatePayoutBody, pre: string): Promise<NotifiedPayoutRequest> {
  const p = (name: string) => `${pre}${name}`;
  if (b.currency.toUpperCase() !== SURFACE_C_CURRENCY) {
    throw validationError(p('currency'), `currency must be ${SURFACE_C_CURRENCY}: Surface C payouts are claim-link payouts paid in US dollars`);
  }
  if (b.recipient_id !== undefined && b.email !== undefined) throw validationError(p('email'), 'Give recipient_id or email, not both');
  let contact: ContactRecipient | null = null;
  if (b.recipient_id !== undefined) {
    contact = await getContactRecipient(core, caller, b.recipient_id).catch((e: unknown) => {
      if (e instanceof ApiError && e.status === 404) throw new ApiError(404, 'not_found', e.message, p('recipient_id'));
      throw e;
    });
  }

  const send = b.notification?.send ?? true;
  if (b.destination !== undefined && b.delivery_channel === undefined) {
    throw validationError(p('delivery_channel'), 'delivery_channel (whatsapp, sms or email) is required with destination');
  }
  if (b.notification?.send === true && b.delivery_channel === undefined) {
    throw validationError(p('delivery_channel'), 'notification.send is true: give the delivery_channel (whatsapp, sms or email) to notify on');
  }
  let notification: NotifiedPayoutRequest['notification'] = null;
  if (b.delivery_channel !== undefined && send) {
    const fallback = b.delivery_channel === 'email' ? (contact?.email ?? b.email) : contact?.phone;
    const destination = b.destination ?? fallback ?? undefined;
    if (destination === undefined) {
      throw validationError(
        p('destination'),
        b.delivery_channel === 'email' ? 'destination (an e-mail address) is required: the recipient has no e-mail' : `destination (a phone number) is required: the recipient has no phone number for ${b.delivery_channel}`,
      );
    }
    const v = validateNotificationRequest({ channel: b.delivery_channel, destination }, { channel: p('delivery_channel'), destination: p('destination') });
    notification = { ...v, language: b.notification?.language ?? null, country: contact?.country ?? null };
  }

  const base: PayoutRequest = { channel: 'claim_link', destinationAmount: b.amount, reference: b.reference, message: b.message };
  let payout: PayoutRequest;
  if (contact) payout = { ...base, recipientId: contact.id };
  else if (b.email !== undefined) payout = { ...base, recipient: { type: 'email', address: b.email } };
  else if (b.destination !== undefined) {
    payout = { ...base, recipient: b.delivery_channel === 'email' ? { type: 'email', address: b.destination } : { type: 'phone', number: b.destination } };
  } else throw validationError(p('recipient_id'), 'recipient_id, email or destination is required');
  return { payout, notification };
}

/** Creates the payouts of `bodies` (one request) and renders them. */
async function create(c: Context<AppEnv>, bodies: CreatePayoutBody[], batch: boolean): Promise<WireSurfaceCPayout[]> {
  const core = c.get('core');
  const caller = c.get('caller');
  const pre = (i: number) => (batch ? `payouts.${i}.` : '');
  try {
    const requests: NotifiedPayoutRequest[] = [];
    for (const [i, b] of bodies.entries()) requests.push(await toCoreRequest(core, caller, b, pre(i)));
    const created = await createNotifiedPayouts(core, caller, requests, { idempotencyKey: c.get('idempotencyKey'), batch, paramPrefix: pre });
    return created.map((p) => renderSurfaceCPayout(p.payout, p.notification));
  } catch (e) {
    if (e instanceof ApiError) throw toSurfaceC(e, (i) => bodies[i ?? 0]);
    throw e;
  }
}

const ERRORS = errorResponses({
  400: 'validation_error (param names the field; payouts.<i>.<field> in a batch), channel_unavailable (live: no live rail to claim to, or no live provider for the destination or delivery_channel; param destination, email or delivery_channel), amount_out_of_range',
  ...AUTH_ERRORS,
  402: 'insufficient_balance: the balance does not cover the payout (the whole batch)',
  404: 'not_found (param recipient_id)',
  409: 'idempotency_conflict',
  422: 'recipient_not_ready',
});

const createPayoutRoute = createRoute({
  operationId: 'createPayout',
  method: 'post',
  path: '/payouts',
  tags: ['Payouts'],
  summary: 'Send a payout',
  description:
    'A claim-link payout of `amount` USD. With delivery_channel (and destination, or the recipient\'s own) the recipient is notified automatically ' +
    'once the claim link is open (event payout.notification_sent); they choose how to withdraw on the claim page.',
  middleware: [idempotency('C')] as const,
  request: { headers: idempotencyHeaders(IDEMPOTENCY_DESCRIPTION), body: { required: true, content: jsonContent(CreatePayoutBody) } },
  responses: { 201: { description: 'The payout (status pending)', content: jsonContent(PayoutSchema) }, ...ERRORS },
});

const batchRoute = createRoute({
  operationId: 'createPayoutBatch',
  method: 'post',
  path: '/payouts/batch',
  tags: ['Payouts'],
  summary: 'Send a batch of payouts',
  description: `1 to ${MAX_BATCH_PAYOUTS} payouts in one request, all or nothing: one bad entry, or a balance short of the whole batch, refuses it and nothing is created.`,
  middleware: [idempotency('C')] as const,
  request: { headers: idempotencyHeaders(IDEMPOTENCY_DESCRIPTION), body: { required: true, content: jsonContent(BatchBody) } },
  responses: {
    201: { description: 'The created payouts, in request order', content: jsonContent(z.object({ data: z.array(PayoutSchema) }).openapi('PayoutBatch')) },
    ...ERRORS,
  },
});

const listPayoutsRoute = createRoute({
  operationId: 'listPayouts',
  method: 'get',
  path: '/payouts',
  tags: ['Payouts'],
  summary: 'List payouts',
  description: 'Newest first; cursor paging (limit 1..200, default 50; next_cursor); optional status filter.',
  request: {
    query: z.object({ status: z.enum(SURFACE_C_PAYOUT_STATUSES).optional().openapi({ description: 'Only payouts in this Surface C status' }), ...pageQuery }),
  },
  responses: {
    200: { description: 'List envelope', content: jsonContent(listEnvelope(PayoutSchema).openapi('PayoutList')) },
    ...errorResponses({ 400: 'validation_error (status, limit, cursor)', ...AUTH_ERRORS }),
  },
});

const getPayoutRoute = createRoute({
  operationId: 'getPayout',
  method: 'get',
  path: '/payouts/{id}',
  tags: ['Payouts'],
  summary: 'Retrieve a payout',
  request: { params: z.object({ id: idParam('id', 'po_01k0000000000000000000000') }) },
  responses: {
    200: { description: 'The payout with its notification', content: jsonContent(PayoutSchema) },
    ...errorResponses({ ...AUTH_ERRORS, 404: 'not_found' }),
  },
});

/** Registers the Surface C payout routes. */
export function registerPayoutRoutes(app: SurfaceRouter): void {
  app.openapi(createPayoutRoute, async (c) => {
    const [payout] = await create(c, [c.req.valid('json')], false);
    return c.json(payout, 201);
  });

  app.openapi(batchRoute, async (c) => {
    const data = await create(c, c.req.valid('json').payouts, true);
    return c.json({ data }, 201);
  });

  app.openapi(listPayoutsRoute, async (c) => {
    const core = c.get('core');
    const q = c.req.valid('query');
    const statuses = q.status ? coreStatusesOf(q.status) : undefined;
    const page = await listPayouts(core, c.get('caller'), { statuses, limit: q.limit, cursor: q.cursor });
    const notes = await notificationsByPayout(core.db, page.data.map((p) => p.id));
    return c.json({ data: page.data.map((p) => renderSurfaceCPayout(p, notes.get(p.id) ?? null)), next_cursor: page.nextCursor }, 200);
  });

  app.openapi(getPayoutRoute, async (c) => {
    const core = c.get('core');
    const p = await getPayout(core, c.get('caller'), c.req.valid('param').id, { reads: true });
    const notes = await notificationsByPayout(core.db, [p.id]);
    return c.json(renderSurfaceCPayout(p, notes.get(p.id) ?? null), 200);
  });
}
