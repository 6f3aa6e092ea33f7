/**
 * A notification provider module (docs/notifications.md "The seam"; docs/architecture.md "Seams"):
 * its id, its own environment variables and how it connects from their parsed values. A module never
 * reads the raw environment nor imports src/config.ts: it is handed its settings.
 */
import type { z } from 'zod';
import type { NotificationChannel } from '../domain/notifications';
import type { SeamModule, SeamSettings } from '../seams/module';
import type { NotificationProvider } from './provider';

/** What every provider shares, decided by the core's own settings. */
export interface ProviderContext {
  /** One provider call's timeout, ms (NOTIFY_PROVIDER_TIMEOUT). */
  timeoutMs: number;
  /** Where providers reach our `/hooks/...` (NOTIFY_CALLBACK_BASE_URL, else PUBLIC_URL), no trailing slash. */
  callbackBaseUrl: string;
}

/** A connected provider; `close()` ends pooled connections when it has any. */
export type ConnectedProvider = NotificationProvider & { close?(): void };

/** One notification provider module; its settings are `S` (a zod raw shape of its variables). */
export interface NotificationProviderModule<S extends SeamSettings = SeamSettings> extends SeamModule<S> {
  /** The channels it sends on, in the registry's order of preference. */
  readonly channels: readonly NotificationChannel[];
  /** True when this module is a webhook adapter, not a provider (it does not make claim_link live). */
  readonly gateway?: boolean;
  /** The provider, or null when its settings are incomplete (the channel then falls to the next module). */
  connect(settings: z.infer<z.ZodObject<S>>, context: ProviderContext): ConnectedProvider | null;
}

/** Declares a module with its settings' type checked against `connect` (an identity). */
export function notificationProviderModule<S extends SeamSettings>(m: NotificationProviderModule<S>): NotificationProviderModule<S> {
  return m;
}
