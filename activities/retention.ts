/** The data-retention activity: a thin adapter over src/core/retention.ts. */
import type { Core } from '../src/core/context';
import { sweepRetention } from '../src/core/retention';
import type { RetentionActivities } from '../workflows/retention.contract';

export function createRetentionActivities(core: Core) {
  return {
    async retentionSweep() {
      return sweepRetention(core);
    },
  } satisfies RetentionActivities;
}
