/** Surface A audit trail (docs/security.md "Audit trail"), over src/core/audit.ts; secrets are never recorded. */
import { createRoute, z } from '@hono/zod-openapi';
import { type AuditEvent, listAuditEvents } from '../../core/audit';
import type { SurfaceRouter } from '../surface';
import { AUTH_ERRORS, DateTimeSchema, errorResponses, jsonContent, listEnvelope, pageQuery } from './schemas';

const AuditEventSchema = z
  .object({
    id: z.string().openapi({ example: 'aud_01k0000000000000000000000' }),
    object: z.literal('audit_event'),
    action: z.string().openapi({ description: 'What was done, `<object>.<verb>`', example: 'api_key.revoked' }),
    actor: z
      .object({
        type: z.enum(['api_key', 'operator', 'system']),
        id: z.string().openapi({ description: 'The API key id, or the operator as user@host', example: 'key_01k0000000000000000000000' }),
      })
      .openapi('AuditActor'),
    object_type: z.string().openapi({ example: 'api_key' }),
    object_id: z.string().openapi({ example: 'key_01k0000000000000000000001' }),
    source: z
      .object({
        ip: z.string().nullable().openapi({ description: 'The client address the API saw (the socket peer)' }),
        forwarded_for: z.string().nullable().openapi({ description: 'The X-Forwarded-For header as sent (not verified)' }),
        user_agent: z.string().nullable(),
        request_id: z.string().nullable().openapi({ description: 'The X-Request-ID of the request that did it' }),
      })
      .openapi('AuditSource'),
    before: z.record(z.string(), z.unknown()).nullable().openapi({ description: 'The object before the act (never a secret)' }),
    after: z.record(z.string(), z.unknown()).nullable().openapi({ description: 'The object after the act (never a secret)' }),
    created_at: DateTimeSchema,
    sequence: z.number().int().openapi({ description: 'Position in the business audit chain (1, 2, 3 …)' }),
    hash: z.string().openapi({ description: 'SHA-256 (hex) of this record and the previous record hash (docs/security.md "Audit trail")' }),
  })
  .openapi('AuditEvent', { description: 'One privileged act: who, what, on which object, when, from where, before and after' });

const AuditEventListSchema = listEnvelope(AuditEventSchema).openapi('AuditEventList');

const listAuditEventsRoute = createRoute({
  operationId: 'listAuditEvents',
  method: 'get',
  path: '/audit-events',
  tags: ['Audit trail'],
  summary: 'List audit events',
  description:
    'The business audit trail in this environment, newest first: API key creation, rolls and revocations; webhook endpoint ' +
    'creation, deletion and secret rotation; disbursement approvals, rejections, launches, pauses and resumes; test-clock ' +
    'advances; operator commands on the business. Filter by actor (a key id), action, object (an id) and time. Records are ' +
    'append-only and hash-chained; secrets are never recorded.',
  request: {
    query: z.object({
      ...pageQuery,
      actor: z.string().max(200).optional().openapi({ description: 'Only acts by this API key id (or operator)', example: 'key_01k0000000000000000000000' }),
      action: z.string().max(100).optional().openapi({ description: 'Only this action', example: 'api_key.revoked' }),
      object: z.string().max(200).optional().openapi({ description: 'Only acts on this object id', example: 'dsb_01k0000000000000000000000' }),
      created_gte: z.string().max(40).optional().openapi({ description: 'Only acts at or after this ISO 8601 date-time', example: '2026-11-01T00:00:00Z' }),
      created_lte: z.string().max(40).optional().openapi({ description: 'Only acts at or before this ISO 8601 date-time', example: '2026-11-30T23:59:59Z' }),
    }),
  },
  responses: {
    200: { description: 'List envelope', content: jsonContent(AuditEventListSchema) },
    ...errorResponses({ 400: 'validation_error (limit, cursor, created_gte, created_lte)', ...AUTH_ERRORS }),
  },
});

/** Response body of `GET /audit-events`. */
export type AuditEventListResponse = z.infer<typeof AuditEventListSchema>;

/** Surface A's wire shape of an audit record. */
function renderAuditEvent(e: AuditEvent): z.infer<typeof AuditEventSchema> {
  return {
    id: e.id,
    object: 'audit_event',
    action: e.action,
    actor: e.actor,
    object_type: e.objectType,
    object_id: e.objectId,
    source: { ip: e.source.ip, forwarded_for: e.source.forwardedFor, user_agent: e.source.userAgent, request_id: e.source.requestId },
    before: e.before,
    after: e.after,
    created_at: e.createdAt.toISOString(),
    sequence: e.seq,
    hash: e.hash,
  };
}

/** Registers `GET /audit-events` on the Surface A app. */
export function registerAuditEventRoutes(app: SurfaceRouter): void {
  app.openapi(listAuditEventsRoute, async (c) => {
    const q = c.req.valid('query');
    const page = await listAuditEvents(
      c.get('core'),
      c.get('caller'),
      { actor: q.actor, action: q.action, object: q.object, createdGte: q.created_gte, createdLte: q.created_lte },
      { limit: q.limit, cursor: q.cursor },
    );
    return c.json({ data: page.data.map(renderAuditEvent), next_cursor: page.nextCursor }, 200);
  });
}
