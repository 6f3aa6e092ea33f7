/** Recipient notifications (docs/notifications.md). */
export * from './provider';
export * from './templates';
export * from './live-provider';
export * from './payout-notifications';
export * from './sandbox-messages';
export * from './notified-payouts';
export * from './live-providers';
export * from './messages';
export * from './opt-outs';
export * from './callbacks';
