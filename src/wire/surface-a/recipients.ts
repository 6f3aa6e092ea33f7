/** Surface A's recipient check (spec "Receivability"). */
import type { Receivability } from '../../domain/recipients';

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
