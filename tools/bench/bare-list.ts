/**
 * The GET /payouts?limit=50 baseline of `npm run bench`: a bare Hono + pg process serving the
 * same query (the columns the API selects, the business's sandbox payouts, newest id first, limit +
 * 1 for the cursor), the same type parsers (src/db/type-parsers.ts) and the same JSON (the
 * project's renderPayout), with no authentication, middleware or Kysely.
 * Environment: DATABASE_URL, BUSINESS_ID, PORT. Logs `bare listening` when ready.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import pg from 'pg';
import { PAYOUT_VIEW_COLUMNS, payoutFromRow } from '../../src/core/payouts';
import { pgTypeParser } from '../../src/db/type-parsers';
import { renderPayout } from '../../src/wire/surface-a/payouts';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, types: { getTypeParser: pgTypeParser as pg.CustomTypesConfig['getTypeParser'] } });
const businessId = process.env.BUSINESS_ID;
const app = new Hono();
app.get('/payouts', async (c) => {
  const limit = Math.min(200, Math.max(1, Number(c.req.query('limit') ?? 50)));
  const { rows } = await pool.query(
    `select ${PAYOUT_VIEW_COLUMNS.join(', ')} from payouts where business_id = $1 and environment = 'sandbox' order by id desc limit $2`,
    [businessId, limit + 1],
  );
  const data = rows.slice(0, limit);
  return c.json({ object: 'list', data: data.map((r) => renderPayout(payoutFromRow(r))), next_cursor: rows.length > limit ? data[data.length - 1].id : null });
});
process.on('SIGTERM', () => process.exit(0));
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' }, () => console.log('bare listening'));
