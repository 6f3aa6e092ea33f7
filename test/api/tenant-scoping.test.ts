/**
 * Tenant scoping (docs/architecture.md "Tenant scoping"): every statement on a table with a `business_id`
 * column filters by it, so one customer never reads or writes another's rows.
 *
 * Why a runtime check over the API flows rather than a grep or a static pass over src/core: a leak is a
 * statement that reaches the database without the filter, however it was built (a helper, a builder passed
 * between functions, a condition added in a branch). A Kysely plugin sees the operation tree of every
 * statement as it is compiled, so it checks exactly what is sent, whichever file built it, and names the
 * call site. The flows below drive each surface A route once for two businesses (reads, lists, creates,
 * and another tenant's ids), with the request path's core on the checked handle.
 *
 * Exceptions (statements that may touch every tenant, matched by call site; each with its reason):
 * the list is `SYSTEM_PATHS`. A raw `sql` template is not inspected (it is one opaque node); the
 * hot-path raw statements scope by hand and are listed in docs/architecture.md "Tenant scoping".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scoped } from '../../src/core/tenancy';
import { newId } from '../../src/domain/ids';
import { createHarness, type Harness } from '../helpers/harness';
import { TenantScopeCheck, tenantTables, type UnscopedQuery } from '../helpers/tenant-scope-check';

/**
 * Functions allowed to touch a tenant table without a business filter (`file function`), and why. Each is a
 * system path: it runs before a tenant is known or for every tenant, never on a caller's behalf.
 */
const SYSTEM_PATHS: Record<string, string> = {
  'src/core/api-keys.ts authenticateKey': 'resolves the tenant from the key hash (the hash is the secret; no tenant is known yet)',
  'src/core/api-keys.ts touchLastUsed': 'stamps last_used_at on the key just authenticated, by its primary key',
};

let h: Harness;
let check: TenantScopeCheck;
let tables: Set<string>;

beforeAll(async () => {
  h = await createHarness({ worker: false });
  tables = await tenantTables(h.db);
  check = new TenantScopeCheck(tables);
  // The app reads `core.db` per request: from here on every statement of a request is inspected.
  h.core.db = h.db.withPlugin(check);
});
afterAll(async () => h?.close());

const siteKey = (q: UnscopedQuery) => `${q.site?.replace(/:\d+$/, '')} ${q.fn}`;
const leaks = (found: UnscopedQuery[]) => found.filter((q) => !(siteKey(q) in SYSTEM_PATHS));

describe('tenant scoping', () => {
  it('reads the tenant tables from the schema', () => {
    for (const t of ['payouts', 'recipients', 'deposits', 'webhook_endpoints', 'events']) expect(tables.has(t)).toBe(true);
  });

  it('flags a deliberately unscoped query and passes the scoped one (negative test)', async () => {
    const probe = new TenantScopeCheck(tables);
    const db = h.db.withPlugin(probe);
    await db.selectFrom('payouts').selectAll().where('id', '=', 'po_missing').execute();
    await db.updateTable('recipients').set({ deleted_at: new Date() }).where('id', '=', 'rcp_missing').execute();
    await db.selectFrom('payout_attempts').innerJoin('payouts', 'payouts.id', 'payout_attempts.payout_id').selectAll().execute();
    expect(probe.unscoped.map((q) => [q.kind, q.tables])).toEqual([
      ['SelectQueryNode', ['payouts']],
      ['UpdateQueryNode', ['recipients']],
      ['SelectQueryNode', ['payouts']],
    ]);
    expect(probe.unscoped[0]!.site).toBe(null); // built in the test, not in src/
    expect(leaks(probe.unscoped)).toHaveLength(3); // and no allow-list entry excuses it
    const tenant = { businessId: newId('biz'), environment: 'sandbox' as const };
    await scoped(db, tenant).selectFrom('payouts').selectAll().where('id', '=', 'po_missing').execute();
    await scoped(db, tenant).updateTable('recipients').set({ deleted_at: new Date() }).where('id', '=', 'rcp_missing').execute();
    await scoped(db, tenant).deleteFrom('recipients').where('id', '=', 'rcp_missing').execute();
    expect(probe.unscoped).toHaveLength(3);
  });

  it('every statement of the surface A routes scopes its tenant tables', async () => {
    const a = await h.business();
    const b = await h.business();
    const fund = await h.request('POST', '/sandbox/v1/sandbox/fund', { key: a.sandbox, body: { amount: '500.00' } });
    expect(fund.status).toBe(200);
    const po = await h.request<{ id: string }>('POST', '/sandbox/v1/payouts', {
      key: a.sandbox,
      body: { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@maria' }, source_amount: '10.00' },
      headers: { 'Idempotency-Key': newId('biz') },
    });
    expect(po.status).toBe(201);
    const lists = ['/payouts', '/recipients', '/deposits', '/disbursements', '/events', '/webhooks', '/payment-links',
      '/payment-requests', '/virtual-accounts', '/audit-events', '/api-keys', '/balance', '/sandbox/clock'];
    for (const path of lists) {
      const r = await h.request('GET', `/sandbox/v1${path}`, { key: a.sandbox });
      expect(r.status, path).toBeLessThan(500);
    }
    // Another tenant's ids answer 404 like unknown ones.
    const ids = [`/payouts/${po.body.id}`, `/payouts/${po.body.id}/receipt`, '/recipients/rcp_x', '/deposits/dep_x',
      '/disbursements/dsb_x', '/events/evt_x', '/webhooks/we_x/deliveries', '/payment-links/pl_x',
      '/payment-requests/pr_x', '/virtual-accounts/va_x', '/disbursements/dsb_x/items'];
    for (const path of ids) {
      const r = await h.request('GET', `/sandbox/v1${path}`, { key: b.sandbox });
      expect(r.status, path).toBe(404);
    }
    for (const path of [`/payouts/${po.body.id}/approve`, `/payouts/${po.body.id}/reject`]) {
      const r = await h.request('POST', `/sandbox/v1${path}`, { key: b.sandbox, body: {} });
      expect(r.status, path).toBe(404);
    }
    for (const path of ['/recipients/rcp_x', '/webhooks/we_x']) {
      const r = await h.request('DELETE', `/sandbox/v1${path}`, { key: b.sandbox });
      expect(r.status, path).toBe(404);
    }

    expect(check.inspected).toBeGreaterThan(50);
    expect([...new Set(leaks(check.unscoped).map((q) => `${siteKey(q)} ${q.kind} ${q.tables.join(',')}`))].sort()).toEqual([]);
  });
});
