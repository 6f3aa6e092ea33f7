/** The data-retention activity (contract: workflows/retention.contract.ts): a thin adapter over src/core/retention.ts. */
import type { Core } from '../src/core/context';
import { sweepRetention } from '../src/core/retention';
import type { RetentionActivities } from '../workflows/retention.contract';

/** The retention activities over one core. */
export function createRetentionActivities(core: Core) {
  return {
    /** sweepRetention: rows past retention, deleted in bounded batches. */
    async retentionSweep() {
      return sweepRetention(core);
    },
  } satisfies RetentionActivities;
}
