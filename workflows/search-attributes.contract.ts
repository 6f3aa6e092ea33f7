import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Search attributes upserted on every transition (docs/architecture.md "Workflow ids and task queues"); no I/O here. */
export const SA = {
  BusinessId: defineSearchAttributeKey('BusinessId', SearchAttributeType.KEYWORD),
  Environment: defineSearchAttributeKey('Environment', SearchAttributeType.KEYWORD),
  PayoutStatus: defineSearchAttributeKey('PayoutStatus', SearchAttributeType.KEYWORD),
  DisbursementId: defineSearchAttributeKey('DisbursementId', SearchAttributeType.KEYWORD),
  DisbursementStatus: defineSearchAttributeKey('DisbursementStatus', SearchAttributeType.KEYWORD),
  Channel: defineSearchAttributeKey('Channel', SearchAttributeType.KEYWORD),
  RailFileId: defineSearchAttributeKey('RailFileId', SearchAttributeType.KEYWORD),
} as const;

export const SEARCH_ATTRIBUTE_NAMES = Object.keys(SA) as (keyof typeof SA)[];
