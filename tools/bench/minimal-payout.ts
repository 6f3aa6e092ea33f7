/**
 * The POST /payouts floor of `npm run bench` (docs/benchmarks.md "The minimal payout floor"): a
 * bare Hono + pg + Temporal client process whose handler does the least a durable payout's
 * acceptance can do, line by line: parse the JSON body, INSERT one row, start one workflow
 * (`minimalPayout` of tools/bench/workflows.ts, run by the bench process's baseline worker), answer
 * 201. No authentication, idempotency, validation, ledger, events or outbox.
 * Environment: DATABASE_URL, TEMPORAL_ADDRESS, TASK_QUEUE, ARRIVAL_MS, PORT. Logs `minimal listening` when ready.
 */
import { randomUUID } from 'node:crypto';
import { serve } from '@hono/node-server';
import { Client, Connection } from '@temporalio/client';
import { Hono } from 'hono';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const taskQueue = process.env.TASK_QUEUE!;
const arrivalMs = Number(process.env.ARRIVAL_MS);

async function main() {
  await pool.query(
    `create table if not exists bench_minimal_payouts (id text primary key, amount text not null, status text not null, created_at timestamptz not null default now())`,
  );
  const client = new Client({ connection: await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }) });
  const app = new Hono();
  app.post('/payouts', async (c) => {
    const body = await c.req.json<{ source_amount?: string }>();
    const id = `mp_${randomUUID()}`;
    await pool.query(`insert into bench_minimal_payouts (id, amount, status) values ($1, $2, 'submitted')`, [id, body.source_amount ?? '0']);
    await client.workflow.start('minimalPayout', { taskQueue, workflowId: id, args: [id, arrivalMs] });
    return c.json({ id, status: 'submitted' }, 201);
  });
  serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' }, () => console.log('minimal listening'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
