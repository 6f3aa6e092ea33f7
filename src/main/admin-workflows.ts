/** `npm run admin -- workflows patches [--json]` (docs/operations.md "Retiring a workflow patch"). */
import { loadConfig } from '../config';
import { RETIRED_PATCHES, type RetiredPatch } from '../../workflows/retired-patches.contract';
import { connectTemporal } from '../temporal/client';
import { temporalConnectionOptions } from '../temporal/connection-options';
import { checkRetiredPatches, type PatchCheck, type VisibilityQuery, temporalVisibility } from '../temporal/patch-guard';

/** A checked patch as the command prints it (`--json`): snake_case; `open_runs` null when not queried (past `safe_after`). */
export function renderPatchCheck(c: PatchCheck) {
  return {
    workflow_type: c.patch.workflowType,
    patch_id: c.patch.patchId,
    deprecated_on: c.patch.deprecatedOn,
    safe_after: c.patch.safeAfter,
    started_before: c.patch.startedBefore,
    open_runs: c.openRuns,
    workflow_ids: c.workflowIds,
    safe: c.safe,
    reason: c.reason,
  };
}

/**
 * Runs `workflows <args>`; returns the exit code: 0 every retirement safe, 1 one is not or visibility
 * did not answer, 2 usage. `deps` replace the declared list, the clock and the Temporal visibility (tests).
 */
export async function runWorkflowsCommand(
  args: string[],
  json: boolean,
  deps: { patches?: readonly RetiredPatch[]; now?: Date; visibility?: VisibilityQuery } = {},
): Promise<number> {
  if (args[0] !== 'patches' || args.length !== 1) {
    console.error('usage: npm run admin -- workflows patches [--json]');
    return 2;
  }
  let close = async () => {};
  let visibility = deps.visibility;
  if (!visibility) {
    const config = loadConfig();
    const client = await connectTemporal(temporalConnectionOptions(config), config.TEMPORAL_NAMESPACE);
    close = () => client.connection.close();
    visibility = temporalVisibility(client);
  }
  try {
    const checks = await checkRetiredPatches(deps.patches ?? RETIRED_PATCHES, deps.now ?? new Date(), visibility);
    const safe = checks.every((c) => c.safe);
    if (json) console.log(JSON.stringify({ safe, patches: checks.map(renderPatchCheck) }, null, 2));
    else {
      for (const c of checks) {
        const p = c.patch;
        const state = c.reason === 'calendar' ? `safe (past ${p.safeAfter})` : c.safe ? 'safe (0 open runs)' : `NOT SAFE: ${c.openRuns} open run(s): ${c.workflowIds.join(', ')}`;
        console.log(`${p.workflowType} ${p.patchId} (deprecated ${p.deprecatedOn}, runs started before ${p.startedBefore}): ${state}`);
      }
      if (!safe) console.log('Run the previous release\'s workers until these runs finish (docs/operations.md "Retiring a workflow patch").');
    }
    return safe ? 0 : 1;
  } catch (err) {
    console.error((err as Error).message);
    return 1;
  } finally {
    await close();
  }
}
