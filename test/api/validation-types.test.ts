import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * Issue #40 "Errors that name the mistake" (docs/integration.md "Errors"): every documented field of
 * every JSON write operation of the three sandbox documents, sent alone with a value of the wrong
 * JSON type, answers 400 validation_error with `param` naming the field in the surface's casing and
 * a message naming what the field must be (`source_amount must be a decimal string such as
 * "100.00"`), never `<field> is required`. The fields come from the served OpenAPI documents, so a
 * new field is walked as soon as it is documented.
 */

type Json = Record<string, any>;

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness({ worker: false });
  key = (await h.business()).sandbox;
});
afterAll(async () => h?.close());

const BASES = ['/sandbox/v1', '/sandbox/claim/v1', '/sandbox/guide/v1'];

/** One field to send with a wrong type: where it is in the body, the wrong value, and what the message must say. */
interface Case {
  op: string;
  method: string;
  path: string;
  param: string;
  body: unknown;
  expect: RegExp;
}

function resolve(doc: Json, schema: Json | undefined): Json | undefined {
  if (!schema) return undefined;
  if (typeof schema.$ref === 'string') return resolve(doc, doc.components.schemas[schema.$ref.split('/').pop()!]);
  return schema;
}

/** The single JSON type a schema documents (`null` alternatives dropped), or undefined when it is open. */
function typeOf(doc: Json, schema: Json): { type: string; schema: Json } | undefined {
  const s = resolve(doc, schema)!;
  if (Array.isArray(s.type)) {
    const types = s.type.filter((t: string) => t !== 'null');
    return types.length === 1 ? { type: types[0], schema: s } : undefined;
  }
  if (typeof s.type === 'string') return { type: s.type, schema: s };
  const alts = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (alts) {
    const typed = alts.map((a) => typeOf(doc, a)).filter((t) => t && t.type !== 'null');
    const kinds = new Set(typed.map((t) => t!.type));
    return kinds.size === 1 && typed.length === alts.filter((a) => resolve(doc, a)!.type !== 'null').length ? typed[0] : undefined;
  }
  return undefined;
}

/** A value of another JSON type than `type`, and the words the message must contain. */
function wrongValue(type: string, s: Json): { value: unknown; expect: RegExp } {
  const isAmount = type === 'string' && typeof s.pattern === 'string' && s.pattern.startsWith('^[0-9]');
  if (isAmount) return { value: 100, expect: /must be a decimal string such as "100\.00"/ };
  if (type === 'string' && Array.isArray(s.enum)) return { value: 5, expect: /must be one of: / };
  switch (type) {
    case 'string':
      return { value: 5, expect: /must be a string/ };
    case 'integer':
      return { value: 'five', expect: /must be (a number|an integer)/ };
    case 'number':
      return { value: 'five', expect: /must be a number/ };
    case 'boolean':
      return { value: 'yes', expect: /must be a boolean/ };
    case 'array':
      return { value: 'x', expect: /must be an array/ };
    case 'object':
      return { value: 'x', expect: /must be an object/ };
    default:
      throw new Error(`no wrong value for type ${type}`);
  }
}

/** Documented fields whose JSON type the walk could not tell (several types, or none): none today. */
const untyped: string[] = [];

/** The cases of one body schema: each property, and one level into objects and arrays of objects. */
function casesOf(doc: Json, schema: Json, base: Omit<Case, 'param' | 'body' | 'expect'>, prefix: string[] = [], depth = 0): Case[] {
  const s = resolve(doc, schema);
  const out: Case[] = [];
  // Disbursement items are checked by the review, not by the request schema (spec rule 1: a bad
  // value makes the item needs_review with a reason); the test below checks that reason.
  if (schema.$ref === '#/components/schemas/DisbursementItemInput') return [];
  for (const [name, prop] of Object.entries<Json>(s?.properties ?? {})) {
    const t = typeOf(doc, prop);
    if (!t) {
      untyped.push(`${base.op} ${[...prefix, name].join('.')}`);
      continue;
    }
    const path = [...prefix, name];
    const wrong = wrongValue(t.type, t.schema);
    out.push({ ...base, param: path.join('.'), body: nest(path, wrong.value), expect: wrong.expect });
    if (depth > 0) continue;
    if (t.type === 'object') out.push(...casesOf(doc, t.schema, base, path, depth + 1));
    if (t.type === 'array' && resolve(doc, t.schema.items)?.properties) out.push(...casesOf(doc, t.schema.items, base, [...path, '0'], depth + 1));
  }
  return out;
}

/** `{a: {b: v}}` from ['a', 'b'], `{a: [{b: v}]}` from ['a', '0', 'b']. */
function nest(path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  const inner = nest(rest, value);
  if (rest[0] === '0') return { [head]: [(inner as Json)['0']] };
  return { [head]: inner };
}

async function allCases(): Promise<Case[]> {
  const cases: Case[] = [];
  for (const base of BASES) {
    const doc = (await h.request('GET', `${base}/openapi.json`)).body as Json;
    for (const [p, item] of Object.entries<Json>(doc.paths)) {
      for (const method of ['post', 'put', 'patch']) {
        const op = item[method];
        const schema = op?.requestBody?.content?.['application/json']?.schema;
        if (!schema) continue;
        const path = base + p.replace(/\{[^}]+\}/g, 'x_unknown');
        cases.push(...casesOf(doc, schema, { op: `${base} ${op.operationId}`, method: method.toUpperCase(), path }));
      }
    }
  }
  return cases;
}

describe('a wrong JSON type names the type the field must be (issue #40)', () => {
  it('POST /sandbox/v1/payouts {"source_amount": 100} is 400 validation_error, param source_amount, naming a decimal string', async () => {
    const r = await h.request('POST', '/sandbox/v1/payouts', { key, body: { channel: 'spei_mxn', recipient_id: 'rcp_x', source_amount: 100 } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'validation_error', param: 'source_amount', message: 'source_amount must be a decimal string such as "100.00"' });
  });

  it('"channel": 5 says channel must be a string; a missing channel still says it is required', async () => {
    const wrong = await h.request('POST', '/sandbox/v1/quotes', { key, body: { channel: 5, source_amount: '100' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'validation_error', param: 'channel', message: 'channel must be a string' });
    const missing = await h.request('POST', '/sandbox/v1/quotes', { key, body: { source_amount: '100' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'validation_error', param: 'channel', message: 'channel is required' });
  });

  it('Surface B names the camelCase field: {"amountUsd": 25} on POST /disbursements', async () => {
    const r = await h.request('POST', '/sandbox/claim/v1/disbursements', { key, body: { recipientPhone: '+525512345678', amountUsd: 25 } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'validation_error', message: 'amountUsd must be a decimal string such as "100.00"', details: { param: 'amountUsd' } });
  });

  it('too many decimals states the limit of the currency', async () => {
    const a = await h.request('POST', '/sandbox/v1/sandbox/fund', { key, body: { amount: '1.1234567' } });
    expect(a.status).toBe(400);
    expect(a.body.error).toMatchObject({ code: 'validation_error', param: 'amount' });
    expect(a.body.error.message).toMatch(/at most 6 decimals/);
    const c = await h.request('POST', '/sandbox/guide/v1/payouts', { key, body: { email: 'ana@example.com', amount: '25.123', currency: 'USD' } });
    expect(c.status).toBe(400);
    expect(c.body.error).toMatchObject({ code: 'validation_error', param: 'amount' });
    expect(c.body.error.message).toMatch(/at most 2 decimals/);
    const b = await h.request('POST', '/sandbox/claim/v1/disbursements', { key, body: { recipientPhone: '+525512345678', amountUsd: '25.123' } });
    expect(b.status).toBe(400);
    expect(b.body.details.param).toBe('amountUsd');
    expect(b.body.message).toMatch(/at most 2 decimals/);
  });

  it('a disbursement item with a wrong-typed amount is needs_review with a reason naming a decimal string', async () => {
    const r = await h.request('POST', '/sandbox/v1/disbursements', {
      key,
      body: { name: 'Types', items: [{ channel: 'spei_mxn', recipient_id: 'rcp_x', source_amount: 100 }] },
    });
    expect(r.status).toBe(201);
    const items = await h.request('GET', `/sandbox/v1/disbursements/${r.body.id}/items`, { key });
    const item = items.body.data[0];
    expect(item.status).toBe('needs_review');
    expect(JSON.stringify(item.review_reasons)).toMatch(/source_amount must be a decimal string such as \\"100\.00\\"/);
  });

  it('every documented field of every JSON write operation of Surfaces A, B and C', async () => {
    const cases = await allCases();
    // The walk covers the three documents' write operations (sanity bound, not a snapshot).
    expect(cases.length).toBeGreaterThan(100);
    for (const b of BASES) expect(cases.some((c) => c.path.startsWith(`${b}/`) && c.param.length > 0)).toBe(true);
    expect(untyped).toEqual([]);
    const failures: string[] = [];
    for (const c of cases) {
      const r = await h.request(c.method, c.path, { key, body: c.body });
      const isB = c.path.startsWith('/sandbox/claim/');
      const code = isB ? r.body?.error : r.body?.error?.code;
      const param = isB ? r.body?.details?.param : r.body?.error?.param;
      const message: string = (isB ? r.body?.message : r.body?.error?.message) ?? '';
      if (r.status !== 400 || code !== 'validation_error' || param !== c.param || !c.expect.test(message)) {
        failures.push(`${c.op} ${c.param}=${JSON.stringify(c.body)}: ${r.status} ${code} param=${param} "${message}" (wanted ${c.expect})`);
      }
    }
    expect(failures).toEqual([]);
  });
});
