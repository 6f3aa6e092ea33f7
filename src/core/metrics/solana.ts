/** Solana watcher and sweep metrics (docs/operations.md "Metrics"), set at scrape time; label `environment`. */
import { sql } from 'kysely';
import { Gauge } from 'prom-client';
import type { Db } from '../../db/schema';
import { metricsRegistry } from './registry';

const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames: ['environment'], registers: [metricsRegistry] });

export const solanaHeadSlot = gauge('solana_watcher_head_slot', "The chain's confirmed slot at the end of the watcher's last poll.");
export const solanaReachedSlot = gauge('solana_watcher_reached_slot', 'The confirmed slot up to which the watcher has recorded every transfer.');
export const solanaLagSlots = gauge('solana_watcher_lag_slots', 'Slots between the chain head and what the watcher has reached, at its last poll.');
export const solanaLastPollAge = gauge('solana_watcher_last_poll_age_seconds', "Seconds since the watcher's last completed poll (scrape time).");
export const solanaAwaitingFinality = gauge('solana_deposits_awaiting_finality', 'On-chain deposits received (confirmed) and waiting for finality.');
export const solanaFeePayerLamports = gauge('solana_fee_payer_lamports', "The sweeps' fee payer balance in lamports at its last check.");

export async function refreshSolanaGauges(db: Db): Promise<void> {
  const watchers = await db.selectFrom('solana_watchers').selectAll().execute();
  const pending = await sql<{ environment: string; n: string }>`select environment, count(*)::text as n from crypto_transfers where status = 'received' group by environment`.execute(db);
  const waiting = new Map(pending.rows.map((r) => [r.environment, Number(r.n)]));
  for (const g of [solanaHeadSlot, solanaReachedSlot, solanaLagSlots, solanaLastPollAge, solanaAwaitingFinality, solanaFeePayerLamports]) g.reset();
  for (const w of watchers) {
    const environment = w.environment;
    if (new Date(w.polled_at).getTime() > 0) {
      solanaHeadSlot.set({ environment }, Number(w.head_slot));
      solanaReachedSlot.set({ environment }, Number(w.reached_slot));
      solanaLagSlots.set({ environment }, Math.max(0, Number(BigInt(w.head_slot) - BigInt(w.reached_slot))));
      solanaLastPollAge.set({ environment }, Math.max(0, Math.floor((Date.now() - new Date(w.polled_at).getTime()) / 1000)));
    }
    solanaAwaitingFinality.set({ environment }, waiting.get(environment) ?? 0);
    if (w.fee_payer_lamports !== null) solanaFeePayerLamports.set({ environment }, Number(w.fee_payer_lamports));
  }
}
