import type { RelayTask } from './relay';
import { dispatchWebhookEvents } from './webhooks';

/** Relay tasks beyond the workflow-start sweep (webhook dispatch registers here). */
export const relayTasks: RelayTask[] = [dispatchWebhookEvents];
