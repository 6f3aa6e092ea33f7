import { createRoute, z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { servedOpenApiDocuments } from '../../src/api/docs';
import { buildSurfaceApp, defineSurface, defineErrorVocabulary, OPERATION_ID_PATTERN } from '../../src/api/surface';
import { renderServedDocuments } from '../../tools/served-documents';

/**
 * Every operation of every served OpenAPI document has an operationId, camelCase and verb first,
 * unique in its document (docs/api-keys.md "Operation ids"), so SDK generators name their methods;
 * and the router factory refuses a route without one.
 */

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
/** Verbs an operationId may begin with; a new kind of operation adds its verb here. */
const VERBS =
  /^(list|get|create|update|delete|revoke|roll|rotate|approve|reject|cancel|claim|confirm|check|export|import|fund|submit|launch|pause|resume|retry|resend|replay|advance|send|verify|search)[A-Z]/;

describe('operationId', () => {
  it('every operation of the six served documents has a unique camelCase, verb-first operationId', async () => {
    const docs = await renderServedDocuments();
    expect(docs.map((d) => d.ref.url).sort()).toEqual(servedOpenApiDocuments().map((d) => d.url).sort());
    expect(docs).toHaveLength(6);
    const problems: string[] = [];
    let operations = 0;
    for (const { ref, document } of docs) {
      const seen = new Map<string, string>();
      for (const [path, item] of Object.entries(document.paths)) {
        for (const method of Object.keys(item).filter((m) => METHODS.includes(m))) {
          operations++;
          const where = `${ref.url}: ${method.toUpperCase()} ${path}`;
          const id = item[method].operationId;
          if (!id) problems.push(`${where} has no operationId`);
          else if (!OPERATION_ID_PATTERN.test(id) || !VERBS.test(id)) problems.push(`${where}: '${id}' is not camelCase, verb first`);
          else if (seen.has(id)) problems.push(`${where}: '${id}' repeats ${seen.get(id)}`);
          else seen.set(id, where);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(operations).toBeGreaterThan(100);
  });

  it('the same operation keeps its operationId in the live and sandbox documents', async () => {
    const docs = await renderServedDocuments();
    const byPath = new Map<string, Map<string, string>>();
    for (const { ref, document } of docs) {
      const surface = ref.id.split('.')[0];
      for (const [path, item] of Object.entries(document.paths)) {
        for (const method of Object.keys(item).filter((m) => METHODS.includes(m))) {
          const key = `${surface} ${method} ${path}`;
          const ids = byPath.get(key) ?? new Map<string, string>();
          ids.set(ref.id, item[method].operationId!);
          byPath.set(key, ids);
        }
      }
    }
    for (const [key, ids] of byPath) expect(new Set(ids.values()).size, key).toBe(1);
    expect(byPath.get('surface-a get /payouts')?.get('surface-a.sandbox')).toBe('listPayouts');
    expect(byPath.get('surface-a post /api-keys/{id}/roll')?.get('surface-a.live')).toBe('rollApiKey');
  });

  it('the router factory refuses a route without an operationId, and a repeated one', () => {
    const errors = defineErrorVocabulary({ schema: z.object({ code: z.string() }), body: (e) => ({ code: e.code }) });
    const surface = (routes: { operationId?: string; path: string }[]) =>
      defineSurface({
        id: 'A',
        name: 'Test surface',
        liveBase: '/t/v1',
        sandboxBase: '/sandbox/t/v1',
        title: 't',
        description: 't',
        errors,
        register: (app) => {
          for (const r of routes) {
            app.openapi(
              createRoute({ method: 'get', path: r.path, ...(r.operationId ? { operationId: r.operationId } : {}), responses: { 204: { description: 'ok' } } }),
              (c) => c.body(null, 204),
            );
          }
        },
      });
    expect(() => buildSurfaceApp(surface([{ path: '/a', operationId: 'getA' }]), 'sandbox')).not.toThrow();
    expect(() => buildSurfaceApp(surface([{ path: '/a' }]), 'sandbox')).toThrow(/GET \/a needs an operationId/);
    expect(() => buildSurfaceApp(surface([{ path: '/a', operationId: 'GetA' }]), 'live')).toThrow(/camelCase/);
    expect(() => buildSurfaceApp(surface([{ path: '/a', operationId: 'getA' }, { path: '/b', operationId: 'getA' }]), 'live')).toThrow(
      /'getA' of GET \/b is already used by GET \/a/,
    );
  });
});
