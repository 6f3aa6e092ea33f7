/** The provider interface lives with the provider modules (src/notifications/provider.ts, docs/notifications.md "The seam"). */
export * from '../../notifications/provider';
