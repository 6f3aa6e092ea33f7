import { Kysely, PostgresDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app';
import { toApiError } from '../../src/api/errors';
import { DatabaseUnavailableError } from '../../src/db/errors';
import type { Database } from '../../src/db/schema';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * A database that cannot be reached (no writable host within DATABASE_FAILOVER_WAIT, or a lost
 * connection) answers 503 service_unavailable with Retry-After on every surface, not 500
 * (docs/integration.md "Errors"; docs/architecture.md "High availability").
 */
let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness({ worker: false });
  key = (await h.business()).sandbox;
});
afterAll(async () => h?.close());

describe('503 service_unavailable', () => {
  it('maps a lost connection, a shutdown and no writable host to 503; other errors stay 500', () => {
    expect(toApiError(new DatabaseUnavailableError(['db-a:5432', 'db-b:5432'], 30_000)).code).toBe('service_unavailable');
    expect(toApiError(new Error('Connection terminated unexpectedly')).status).toBe(503);
    expect(toApiError(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })).status).toBe(503);
    expect(toApiError(new Error('boom')).status).toBe(500);
  });

  it.each([
    ['A', '/sandbox/v1/payouts', (b: any) => b.error.code],
    ['B', '/sandbox/claim/v1/events', (b: any) => b.error],
    ['C', '/sandbox/guide/v1/payouts', (b: any) => b.error.code],
  ])('Surface %s answers 503 with Retry-After while no database server can be reached', async (_s, path, codeOf) => {
    const failing = new Kysely<Database>({
      dialect: new PostgresDialect({
        pool: {
          connect: async () => {
            throw new DatabaseUnavailableError(['127.0.0.1:1'], 30_000);
          },
          end: async () => {},
        },
      }),
    });
    const app = createApp({ ...h.core, db: failing });
    const res = await app.request(path, { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(503);
    expect(res.headers.get('Retry-After')).toBe('5');
    expect(codeOf(await res.json())).toBe('service_unavailable');
  });
});
