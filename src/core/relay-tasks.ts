import type { RelayTask } from './relay';

/** Relay tasks beyond the workflow-start sweep (webhook dispatch registers here). */
export const relayTasks: RelayTask[] = [];
