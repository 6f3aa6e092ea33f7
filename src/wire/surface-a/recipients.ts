/** Surface A's recipient and recipient check (spec "Recipient", "Receivability"). */
import type { RecipientEventValue } from '../../domain/event-objects';
import type { Receivability } from '../../domain/recipients';

/** The fields of a recipient Surface A renders (the event's recipient value without its correction); `details` already masked by the caller. */
export type RecipientView = Omit<RecipientEventValue, 'correction'>;

/** Surface A's recipient in spec order, the type object named by `type`; `created_at`/`updated_at` ISO 8601. */
export function renderRecipientObject(r: RecipientView): Record<string, unknown> {
  return {
    id: r.id,
    object: 'recipient',
    type: r.type,
    country: r.country,
    currency: r.currency,
    name: r.name,
    kind: r.kind,
    external_id: r.externalId,
    [r.type]: r.details,
    status: r.status,
    missing_fields: r.missingFields,
    channels: r.channels,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

/** `GET /recipients/check` wire shape. */
export interface WireReceivability {
  receivable: boolean;
  country: string | null;
  methods: string[];
  kyc_required_for: string[];
}

export function renderReceivability(r: Receivability): WireReceivability {
  return { receivable: r.receivable, country: r.country, methods: [...r.methods], kyc_required_for: [...r.kycRequiredFor] };
}
