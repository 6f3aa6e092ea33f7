/** Recipient notifications (docs/notifications.md). */
export * from './provider';
export * from './templates';
export { LIVE_HTTP_PROVIDER, LIVE_PROVIDER_TIMEOUT_MS, liveNotificationProvider, readLiveNotificationConfig, type LiveNotificationConfig } from '../../notifications/http-gateway';
export * from './payout-notifications';
export * from './sandbox-messages';
export * from './notified-payouts';
export * from './live-providers';
export * from './messages';
export * from './opt-outs';
export * from './callbacks';
