/**
 * `npm run bench` (= `npm run bench:disbursement`): a 5,000-item sandbox disbursement against a
 * running `npm run dev` (docs/disbursements.md). Creates the batch, reviews it (GET), adds a second
 * key with POST /api-keys, submits with the owner key, approves with the second key, funds the
 * sandbox balance, launches, and waits until every item is final. Prints:
 *   create+review seconds, launch-to-complete seconds, payouts per second, worker peak RSS (VmHWM).
 *
 * Options (flags or environment):
 *   --url   BENCH_URL    base origin, default http://localhost:$PORT (PORT default 3000)
 *   --key   BENCH_KEY    sandbox owner key, default .data/dev-credentials.json (written by npm run dev)
 *   --items BENCH_ITEMS  number of items, default 5000 (at most 5,000)
 *   --pid   BENCH_PID    pid of the process running the worker; default: the process listening on the port
 *   --json               print the figures as one JSON line as well
 * In `npm run dev` the API and the worker are one process, so its VmHWM is the worker's peak RSS.
 * VmHWM covers the process's whole life (start-up opens PGlite and loads the workflow bundle into
 * the worker's V8 context: about 580 MiB before any work), so the bench also prints VmHWM before
 * it starts and the highest VmRSS it sampled (every 250 ms) while it ran.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    key: { type: 'string' },
    items: { type: 'string' },
    pid: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});

const port = Number(process.env.PORT ?? 3000);
const origin = (args.url ?? process.env.BENCH_URL ?? `http://localhost:${port}`).replace(/\/$/, '');
const base = `${origin}/sandbox/v1`;
const itemCount = Number(args.items ?? process.env.BENCH_ITEMS ?? 5000);

function ownerKey(): string {
  const key = args.key ?? process.env.BENCH_KEY;
  if (key) return key;
  const file = resolve(process.env.DATA_DIR ?? './.data', 'dev-credentials.json');
  try {
    return JSON.parse(readFileSync(file, 'utf8')).keys.sandbox;
  } catch {
    throw new Error(`No key: pass --key or BENCH_KEY, or start \`npm run dev\` once so that ${file} exists`);
  }
}

async function call(method: string, path: string, key: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : undefined;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return parsed;
}

/** Pid of the process listening on `port` (Linux /proc: socket inode -> owning process). */
function pidListeningOn(p: number): number | undefined {
  const hex = p.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9 && cols[1]?.endsWith(`:${hex}`) && cols[3] === '0A') inodes.add(cols[9]);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[] = [];
    try {
      fds = readdirSync(join('/proc', entry, 'fd'));
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(join('/proc', entry, 'fd', fd)));
        if (m && inodes.has(m[1])) return Number(entry);
      } catch {
        // fd closed meanwhile
      }
    }
  }
  return undefined;
}

/** A memory line of /proc/<pid>/status (`VmHWM`: peak resident set; `VmRSS`: now), in MiB. */
function memMiB(pid: number | undefined, field: 'VmHWM' | 'VmRSS'): number | undefined {
  if (!pid) return undefined;
  try {
    const m = new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);

async function main() {
  if (!Number.isInteger(itemCount) || itemCount < 1 || itemCount > 5000) throw new Error('--items must be 1..5000');
  const owner = ownerKey();
  const pid = args.pid ? Number(args.pid) : pidListeningOn(new URL(origin).port ? Number(new URL(origin).port) : 80);
  console.log(`Bench: ${itemCount}-item sandbox disbursement against ${base}${pid ? ` (worker pid ${pid})` : ''}`);

  const run = Date.now().toString(36);
  const items = Array.from({ length: itemCount }, (_, i) => ({
    channel: 'service_user_usdc',
    source_amount: `${1 + (i % 50)}.${String(i % 100).padStart(2, '0')}`,
    recipient: { type: 'service_user', handle: `@b${run}_${i}` },
    reference: `bench-${run}-${i}`,
  }));

  const hwmBefore = memMiB(pid, 'VmHWM');
  let rssMax = memMiB(pid, 'VmRSS') ?? 0;
  const sample = () => {
    rssMax = Math.max(rssMax, memMiB(pid, 'VmRSS') ?? 0);
  };
  const sampler = setInterval(sample, 250);

  // 1. Create and review.
  const t0 = performance.now();
  const created = await call('POST', '/disbursements', owner, { name: `Bench ${run}`, items });
  const reviewed = await call('GET', `/disbursements/${created.id}`, owner);
  const createReviewMs = performance.now() - t0;
  if (reviewed.summary.needs_review !== 0) throw new Error(`${reviewed.summary.needs_review} items need review`);
  console.log(
    `  created ${created.id}: ${reviewed.summary.item_count} items ready, total ${reviewed.summary.total_source_amount} USDC ` +
      `+ ${reviewed.summary.total_fees} fees (${seconds(createReviewMs)} s)`,
  );

  // 2. A second key approves what the owner key submits.
  const approver = await call('POST', '/api-keys', owner, { name: `Bench approver ${run}` });
  const submitted = await call('POST', `/disbursements/${created.id}/submit-for-approval`, owner);
  await call('POST', `/disbursements/${created.id}/approvals/${submitted.revision_id}/approve`, approver.key);

  // 3. Fund what the batch needs.
  await call('POST', '/sandbox/fund', owner, { amount: reviewed.balance_check.required });

  // 4. Launch and wait until every item is final.
  const t1 = performance.now();
  await call('POST', `/disbursements/${created.id}/launch`, owner);
  let last = 0;
  let final: any;
  for (;;) {
    const d = await call('GET', `/disbursements/${created.id}`, owner);
    if (d.status === 'completed' || d.status === 'completed_with_failures') {
      final = d;
      break;
    }
    if (performance.now() - last > 5000) {
      last = performance.now();
      console.log(`  ${seconds(performance.now() - t1)} s: ${JSON.stringify(d.progress)}`);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  const runMs = performance.now() - t1;
  clearInterval(sampler);
  sample();
  const hwm = memMiB(pid, 'VmHWM');

  const figures = {
    items: itemCount,
    status: final.status,
    create_review_seconds: Number(seconds(createReviewMs)),
    launch_to_complete_seconds: Number(seconds(runMs)),
    payouts_per_second: Number((final.progress.succeeded / (runMs / 1000)).toFixed(1)),
    worker_peak_rss_mib: hwm !== undefined ? Number(hwm.toFixed(0)) : null,
    worker_peak_rss_before_bench_mib: hwmBefore !== undefined ? Number(hwmBefore.toFixed(0)) : null,
    worker_max_rss_during_bench_mib: pid ? Number(rssMax.toFixed(0)) : null,
  };
  console.log(`
Results (${itemCount} items, ${final.status}: ${final.progress.succeeded} succeeded, ${final.progress.failed} failed)
  create+review:       ${figures.create_review_seconds} s
  launch-to-complete:  ${figures.launch_to_complete_seconds} s
  payouts per second:  ${figures.payouts_per_second}
  worker peak RSS:     ${
    figures.worker_peak_rss_mib !== null
      ? `${figures.worker_peak_rss_mib} MiB (VmHWM of pid ${pid}; it was ${figures.worker_peak_rss_before_bench_mib} MiB before the bench ` +
        `(start-up); highest VmRSS sampled during the bench: ${figures.worker_max_rss_during_bench_mib} MiB)`
      : 'unknown (pass --pid)'
  }`);
  if (args.json) console.log(JSON.stringify(figures));
}

main().catch((err) => {
  console.error(String(err?.stack ?? err));
  process.exit(1);
});
