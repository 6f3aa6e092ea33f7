/**
 * One page of a cursor-paged list, newest first (spec "List envelope"): `nextCursor` is the opaque
 * cursor of the next page, null on the last. Each surface renders it in its own envelope
 * (Surface A `{data, next_cursor}`, Surface B `{data, nextCursor}`).
 */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}
