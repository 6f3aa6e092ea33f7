/** A notification provider module (docs/notifications.md "The seam"): handed its parsed settings, never the raw environment. */
import type { z } from 'zod';
import type { NotificationChannel } from '../domain/notifications';
import type { SeamModule, SeamSettings } from '../seams/module';
import type { NotificationProvider } from './provider';

/** Shared by every provider: one call's timeout in ms, and where providers reach our `/hooks/...` (no trailing slash). */
export interface ProviderContext {
  timeoutMs: number;
  callbackBaseUrl: string;
}

/** `close()` ends pooled connections. */
export type ConnectedProvider = NotificationProvider & { close?(): void };

/** One module: the channels it sends on; `gateway` for a webhook adapter; `connect` null when its settings are incomplete. */
export interface NotificationProviderModule<S extends SeamSettings = SeamSettings> extends SeamModule<S> {
  readonly channels: readonly NotificationChannel[];
  readonly gateway?: boolean;
  connect(settings: z.infer<z.ZodObject<S>>, context: ProviderContext): ConnectedProvider | null;
}

/** Declares a module with its settings' type checked against `connect` (an identity). */
export function notificationProviderModule<S extends SeamSettings>(m: NotificationProviderModule<S>): NotificationProviderModule<S> {
  return m;
}
