/** The results export (spec GET /disbursements/{id}/export: one CSV row per item). */
import { Readable } from 'node:stream';
import { findChannel } from '../../domain/channels';
import { lazyPackage } from '../../lazy-package';
import { type Caller, type Core, readsOf } from '../context';
import { iso } from './shared';
import { renderDisbursementItem } from '../../wire/surface-a/disbursements';
import { findRow, type ItemWithPayout, readItemsWithPayouts, toDisbursementItem } from './read';

const csvStringify = lazyPackage<typeof import('csv-stringify')>('csv-stringify');

/** Columns of the results export, in order (docs/disbursements.md "Results export"). */
export const EXPORT_COLUMNS = [
  'item_id',
  'seq',
  'row_number',
  'reference',
  'status',
  'failure_code',
  'failure_message',
  'channel',
  'recipient_id',
  'recipient_type',
  'recipient',
  'source_amount',
  'source_currency',
  'fees',
  'debit_total',
  'rate',
  'destination_amount',
  'destination_currency',
  'payout_id',
  'provider_reference',
  'onchain_transaction',
  'attempts',
  'rail_attempts',
  'created_at',
  'submitted_at',
  'delivered_at',
] as const;

/** One export row of an item (bank and identity fields masked). */
function exportRow(r: ItemWithPayout): Record<(typeof EXPORT_COLUMNS)[number], string | number | null> {
  const w = renderDisbursementItem(toDisbursementItem(r));
  const recipient = w.recipient
    ? Object.entries(w.recipient)
        .filter(([k]) => k !== 'type')
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join('; ')
    : null;
  const channel = r.item.channel ? findChannel(r.item.channel) : undefined;
  return {
    item_id: w.id,
    seq: w.seq,
    row_number: w.row_number,
    reference: w.reference,
    status: w.status,
    failure_code: w.failure?.code ?? null,
    failure_message: w.failure?.message ?? null,
    channel: w.channel,
    recipient_id: w.recipient_id,
    recipient_type: w.recipient_type,
    recipient,
    source_amount: w.source_amount,
    source_currency: w.source_currency,
    fees: w.fees?.total ?? null,
    debit_total: w.debit_total,
    rate: w.rate,
    destination_amount: w.destination_amount,
    destination_currency: w.destination_currency,
    payout_id: w.payout_id,
    provider_reference: w.provider_reference,
    onchain_transaction: channel?.recipientType === 'wallet' ? w.provider_reference : null,
    attempts: w.attempts,
    rail_attempts: r.payout?.attemptCount ?? 0,
    created_at: w.created_at,
    submitted_at: iso(r.payout?.createdAt),
    delivered_at: w.delivered_at,
  };
}

/**
 * `GET /disbursements/{id}/export.csv`: one row per item in batch order ({@link EXPORT_COLUMNS}),
 * streamed through csv-stringify while pages of 500 items are read. 404 for an unknown id.
 * Returns a web ReadableStream of UTF-8 CSV.
 */
export async function exportResultsCsv(core: Core, caller: Caller, id: string): Promise<ReadableStream<Uint8Array>> {
  const db = readsOf(core);
  const row = await findRow(db, caller, id);
  async function* rows() {
    let after = 0;
    for (;;) {
      const page = await readItemsWithPayouts(db, row.id, { afterSeq: after, limit: 500 });
      for (const r of page) yield exportRow(r);
      if (page.length < 500) return;
      after = page[page.length - 1].item.seq;
    }
  }
  const csv: AsyncIterator<Buffer | string> = Readable.from(rows()).pipe(csvStringify().stringify({ header: true, columns: [...EXPORT_COLUMNS] }))[Symbol.asyncIterator]();
  const utf8 = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await csv.next();
      if (next.done) controller.close();
      else controller.enqueue(typeof next.value === 'string' ? utf8.encode(next.value) : new Uint8Array(next.value));
    },
    async cancel() {
      await csv.return?.();
    },
  });
}
