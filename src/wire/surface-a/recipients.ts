/** Surface A's recipient and recipient check (spec "Recipient", "Receivability"). */
import type { Receivability } from '../../domain/recipients';

/** The fields of a recipient Surface A renders; `details` already masked by the caller. */
export interface RecipientView {
  id: string;
  type: string;
  country: string | null;
  currency: string | null;
  name: string | null;
  kind: string | null;
  externalId: string | null;
  details: Record<string, unknown>;
  status: string;
  missingFields: string[];
  channels: string[];
  createdAt: Date;
  updatedAt: Date;
}

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
