/**
 * Responses the app-wide middleware can give on every operation (400 validation_error, 413, 409
 * idempotency conflicts, 429 rate_limited), added to each served OpenAPI document so it describes
 * what the service sends (docs/security.md). An operation's own description wins.
 */

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

const rateHeaders = {
  'Retry-After': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
  'X-RateLimit-Limit': { description: 'Requests allowed in the window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'End of the window, Unix seconds', schema: { type: 'integer' } },
};

/** Adds the common responses to every operation of `doc` in place (error body: its `Error` component). */
export function addCommonResponses<T extends object>(doc: T): T {
  const d = doc as Json;
  const schemas = ((d.components as Json | undefined)?.schemas ?? {}) as Json;
  const content = schemas.Error ? { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } : undefined;
  const response = (description: string, extra: Json = {}) => ({ description, ...(content ? { content } : {}), ...extra });
  const globalSecurity = Array.isArray(d.security) && d.security.length > 0;
  for (const item of Object.values((d.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const responses = (op.responses ??= {}) as Json;
      responses['400'] ??= response('validation_error: a parameter, header or body is malformed or holds NUL characters or unpaired surrogates, or JSON nests deeper than 32 levels');
      if (op.requestBody) responses['413'] ??= response('payload_too_large: the body is larger than the service accepts');
      if (takesIdempotencyKey(op, schemas)) {
        responses['409'] ??= response('idempotency_conflict (the key was used with another request) or idempotency_in_flight (the first request is still running)');
      }
      const secured = Array.isArray(op.security) ? op.security.length > 0 : globalSecurity;
      if (secured) responses['429'] ??= response('rate_limited: too many requests for this API key; retry after Retry-After seconds', { headers: rateHeaders });
      responses['503'] ??= response('service_unavailable: the database connection was lost or is failing over; retry after Retry-After seconds (with the same Idempotency-Key: a committed first try is answered)', {
        headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } },
      });
    }
  }
  return doc;
}

function takesIdempotencyKey(op: Json, schemas: Json): boolean {
  const params = (op.parameters ?? []) as Json[];
  if (params.some((p) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key')) return true;
  const content = ((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
  for (const media of Object.values(content)) {
    let schema = media.schema as Json | undefined;
    const ref = schema?.$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) schema = schemas[ref.slice('#/components/schemas/'.length)] as Json | undefined;
    if (schema?.properties && 'idempotencyKey' in (schema.properties as Json)) return true;
  }
  return false;
}
