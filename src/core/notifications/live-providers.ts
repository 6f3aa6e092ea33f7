/** The live provider per channel: the first registry module that connects (docs/notifications.md "The seam"). */
import type { Config } from '../../config';
import { parseDuration } from '../../domain/durations';
import { type NotificationChannel, NOTIFICATION_CHANNELS } from '../../domain/notifications';
import { httpGatewayConfigured } from '../../notifications/http-gateway';
import type { ConnectedProvider, NotificationProviderModule } from '../../notifications/module';
import type { NotificationProvider } from '../../notifications/provider';
import { NOTIFICATION_PROVIDERS } from '../../notifications/registry';
import type { Core } from '../context';

/** `close()` ends pooled connections. */
export interface LiveProviders {
  email: NotificationProvider;
  sms: NotificationProvider;
  whatsapp: NotificationProvider;
  /** A WhatsApp fallback needs SMS configured. */
  smsConfigured: boolean;
  close(): void;
}

const cache = new WeakMap<Config, LiveProviders>();

export const callbackBaseUrl = (config: Config) => (config.NOTIFY_CALLBACK_BASE_URL ?? config.publicUrl).replace(/\/$/, '');

export function buildLiveProviders(config: Config, modules: readonly NotificationProviderModule[] = NOTIFICATION_PROVIDERS): LiveProviders {
  const context = { timeoutMs: parseDuration(config.NOTIFY_PROVIDER_TIMEOUT), callbackBaseUrl: callbackBaseUrl(config) };
  const connected: Array<{ module: NotificationProviderModule; provider: ConnectedProvider }> = [];
  for (const module of modules) {
    const provider = module.connect(config, context);
    if (provider) connected.push({ module, provider });
  }
  const pick = (channel: NotificationChannel) => connected.find((c) => c.module.channels.includes(channel));
  const byChannel = Object.fromEntries(
    NOTIFICATION_CHANNELS.map((channel) => {
      const c = pick(channel);
      if (!c) throw new Error(`No notification provider module serves ${channel}`);
      return [channel, c.provider];
    }),
  ) as Record<NotificationChannel, NotificationProvider>;
  const smsPick = pick('sms');
  const smsConfigured = Boolean(smsPick && (!smsPick.module.gateway || httpGatewayConfigured(config)));
  return { ...byChannel, smsConfigured, close: () => connected.forEach((c) => c.provider.close?.()) };
}

/** Built once per configuration. */
export function liveProvidersOf(core: Core): LiveProviders {
  let p = cache.get(core.config);
  if (!p) {
    p = buildLiveProviders(core.config);
    cache.set(core.config, p);
  }
  return p;
}

export function closeLiveProviders(core: Core): void {
  cache.get(core.config)?.close();
  cache.delete(core.config);
}

export function liveProviderFor(core: Core, channel: NotificationChannel): NotificationProvider {
  return liveProvidersOf(core)[channel];
}
