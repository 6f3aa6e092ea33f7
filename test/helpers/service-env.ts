import { inject } from 'vitest';
import type { Harness } from './harness';

/**
 * Environment of a real `src/main/<entry>.ts` process started by a test: this process's own, then the
 * harness's database, the run's Temporal server and the harness's task queue, then `extra`.
 */
export function serviceEnv(h: Harness, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, DATABASE_URL: h.databaseUrl, TEMPORAL_ADDRESS: inject('temporalAddress'), TASK_QUEUE: h.config.TASK_QUEUE, SCREENING_LISTS: 'sandbox', ...extra };
}
