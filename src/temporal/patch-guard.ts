import { RETIRED_PATCHES, type RetiredPatch } from '../../workflows/retired-patches.contract';
import type { TemporalClient } from './client';

/** Open runs a visibility query matched: their number and the ids of up to the first 10. */
export interface OpenRuns {
  count: number;
  workflowIds: string[];
}

/** Answers a Temporal visibility query (list filter syntax); throws when visibility does not answer. */
export type VisibilityQuery = (query: string) => Promise<OpenRuns>;

/** One retired patch checked: `openRuns` is null when its `safeAfter` date has passed (not queried). */
export interface PatchCheck {
  patch: RetiredPatch;
  query: string;
  openRuns: number | null;
  workflowIds: string[];
  safe: boolean;
  reason: 'calendar' | 'no_open_runs' | 'open_runs';
}

/** The visibility query of the open runs that may lack `p`'s marker (docs/operations.md "Retiring a workflow patch"). */
export function openRunsQuery(p: RetiredPatch): string {
  return `WorkflowType = '${p.workflowType}' AND ExecutionStatus = 'Running' AND StartTime < '${new Date(p.startedBefore).toISOString()}'`;
}

/** True from 00:00 UTC of `p.safeAfter` on. */
export function pastSafeAfter(p: RetiredPatch, now: Date): boolean {
  return now.getTime() >= Date.parse(`${p.safeAfter}T00:00:00Z`);
}

/** One visibility query per patch before its `safeAfter`, in parallel; retried `attempts` times, then throws an Error naming the query (fails closed). */
export async function checkRetiredPatches(
  patches: readonly RetiredPatch[],
  now: Date,
  visibility: VisibilityQuery,
  opts: { attempts?: number; retryDelayMs?: number } = {},
): Promise<PatchCheck[]> {
  const attempts = opts.attempts ?? 3;
  const ask = async (query: string): Promise<OpenRuns> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await visibility(query);
      } catch (err) {
        if (attempt >= attempts) {
          throw new Error(`Temporal visibility did not answer ${attempts} times (${String(err)}); the retired-patch check fails closed. Query: ${query}`);
        }
        await new Promise((r) => setTimeout(r, opts.retryDelayMs ?? 1000));
      }
    }
  };
  return Promise.all(
    patches.map(async (patch): Promise<PatchCheck> => {
      const query = openRunsQuery(patch);
      if (pastSafeAfter(patch, now)) return { patch, query, openRuns: null, workflowIds: [], safe: true, reason: 'calendar' };
      const runs = await ask(query);
      const safe = runs.count === 0;
      return { patch, query, openRuns: runs.count, workflowIds: runs.workflowIds, safe, reason: safe ? 'no_open_runs' : 'open_runs' };
    }),
  );
}

/** Why a worker must not start with these checks (one paragraph per unsafe patch), or null when all are safe. */
export function patchRefusal(checks: readonly PatchCheck[]): string | null {
  const unsafe = checks.filter((c) => !c.safe);
  if (unsafe.length === 0) return null;
  const lines = unsafe.map(({ patch: p, openRuns, workflowIds }) => {
    const more = (openRuns ?? 0) - workflowIds.length;
    return (
      `retired workflow patch '${p.patchId}' (${p.workflowType}, deprecatePatch since ${p.deprecatedOn}): ${openRuns} open run(s) started before ` +
      `${p.startedBefore} may lack its marker and fail on replay: ${workflowIds.join(', ')}${more > 0 ? ` and ${more} more` : ''}`
    );
  });
  return (
    `worker refused to start: ${lines.join('; ')}. Remedy: run the previous release's workers until these runs finish ` +
    `(or until the safeAfter date), then deploy this one; docs/operations.md "Retiring a workflow patch". Check again with: npm run admin -- workflows patches`
  );
}

/** A {@link VisibilityQuery} over a Temporal client: one count, then a list of up to `limit` ids when it is not 0; `deadlineMs` per call. */
export function temporalVisibility(client: TemporalClient, limit = 10, deadlineMs = 5000): VisibilityQuery {
  return (query) =>
    client.withDeadline(Date.now() + deadlineMs, async () => {
      const { count } = await client.workflow.count(query);
      const workflowIds: string[] = [];
      if (count > 0) {
        for await (const run of client.workflow.list({ query, pageSize: limit })) {
          workflowIds.push(run.workflowId);
          if (workflowIds.length >= limit) break;
        }
      }
      return { count, workflowIds };
    });
}

/** The production worker's start check (src/main/worker.ts): null when it may start, else the refusal to print (also when visibility did not answer). */
export async function workerStartRefusal(client: TemporalClient, now = new Date(), patches: readonly RetiredPatch[] = RETIRED_PATCHES): Promise<string | null> {
  try {
    return patchRefusal(await checkRetiredPatches(patches, now, temporalVisibility(client)));
  } catch (err) {
    return `worker refused to start: ${(err as Error).message}. Retry once Temporal answers; docs/operations.md "Retiring a workflow patch" (WORKER_SKIP_PATCH_CHECK=true skips the check)`;
  }
}
