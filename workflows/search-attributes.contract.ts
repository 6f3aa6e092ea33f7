import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Search attributes upserted on every transition so operators can filter in the Temporal UI and
 * CLI (docs/architecture.md "Workflow ids and task queues"), e.g. `temporal workflow list --query "PayoutStatus='failed'"`.
 * Workflows import these keys, so this module stays free of I/O.
 */
export const SA = {
  BusinessId: defineSearchAttributeKey('BusinessId', SearchAttributeType.KEYWORD),
  Environment: defineSearchAttributeKey('Environment', SearchAttributeType.KEYWORD),
  PayoutStatus: defineSearchAttributeKey('PayoutStatus', SearchAttributeType.KEYWORD),
  DisbursementId: defineSearchAttributeKey('DisbursementId', SearchAttributeType.KEYWORD),
  DisbursementStatus: defineSearchAttributeKey('DisbursementStatus', SearchAttributeType.KEYWORD),
  Channel: defineSearchAttributeKey('Channel', SearchAttributeType.KEYWORD),
  /** The bank file (`rf_…`) a rail window workflow wrote and sent (docs/rails.md "For operators"). */
  RailFileId: defineSearchAttributeKey('RailFileId', SearchAttributeType.KEYWORD),
} as const;

/** Names of every custom search attribute (all Keyword). */
export const SEARCH_ATTRIBUTE_NAMES = Object.keys(SA) as (keyof typeof SA)[];
