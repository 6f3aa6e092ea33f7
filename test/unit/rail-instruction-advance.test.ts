/**
 * A rail instruction only moves forward (docs/rails.md "The seam"), also when two writers race: a
 * partner submit moving it to `accepted` outside a transaction, and the partner's webhook moving it
 * to `settled` in between the submit's read and write (found by the 10-minute chaos run: a payout
 * `succeeded` whose instruction stayed `accepted` and was polled for ever).
 */
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceInstruction, queueInstruction } from '../../src/core/rails/instructions';
import type { Db } from '../../src/db/schema';
import { freshDatabase } from '../helpers/fresh-database';

let db: Db;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ db, close } = await freshDatabase());
}, 60_000);

afterAll(async () => {
  await close?.();
});

const now = new Date('2026-11-27T16:00:00Z');

async function queued(payoutId: string) {
  await queueInstruction(
    db,
    {
      payout_id: payoutId,
      attempt: 1,
      rail: 'wise',
      business_id: 'biz_test',
      end_to_end_id: `e2e-${payoutId}`,
      uetr: null,
      trace_number: null,
      details: null,
      amount_minor: 1000n,
      currency: 'MXN',
      creditor_name: 'Ana Lopez',
      creditor_iban: null,
      creditor_bic: null,
      remittance: null,
    },
    now,
  );
  return { payoutId, attempt: 1 };
}

const statusOf = async (payoutId: string) =>
  (await db.selectFrom('rail_instructions').select('status').where('payout_id', '=', payoutId).executeTakeFirstOrThrow()).status;

/** Runs `between` once, right after the first statement that reads a `queued` instruction returns (`fired()` says whether it did). */
function afterFirstRead(between: () => Promise<void>): KyselyPlugin & { fired: () => boolean } {
  let fired = false;
  return {
    fired: () => fired,
    transformQuery: (args: PluginTransformQueryArgs): RootOperationNode => args.node,
    transformResult: async (args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => {
      if (!fired && args.result.rows.some((r) => r.status === 'queued')) {
        fired = true;
        await between();
      }
      return args.result;
    },
  };
}

describe('advanceInstruction', () => {
  it('never moves back: accepted after settled leaves settled; settled after accepted moves on', async () => {
    const a = await queued('po_adv_order');
    await advanceInstruction(db, a, 'settled', now);
    await advanceInstruction(db, a, 'accepted', now);
    expect(await statusOf(a.payoutId)).toBe('settled');
    const b = await queued('po_adv_forward');
    await advanceInstruction(db, b, 'accepted', now);
    await advanceInstruction(db, b, 'settled', now);
    await advanceInstruction(db, b, 'returned', now);
    expect(await statusOf(b.payoutId)).toBe('returned');
  });

  it('a webhook that settles the instruction between a submit\'s read and write is not overwritten by the submit\'s accepted', async () => {
    const key = await queued('po_adv_race');
    // The webhook's move, made on another connection the moment the submit has read `queued`.
    const hook = afterFirstRead(() => advanceInstruction(db, key, 'settled', now));
    await advanceInstruction(db.withPlugin(hook), key, 'accepted', now);
    // A single conditional UPDATE reads nothing first, so the webhook's move comes after it.
    if (!hook.fired()) await advanceInstruction(db, key, 'settled', now);
    expect(await statusOf(key.payoutId)).toBe('settled');
  });

  it('two writers at once, a submit (accepted) and a webhook (settled) in a transaction: settled wins whatever the order', async () => {
    const key = await queued('po_adv_concurrent');
    await Promise.all([
      db.transaction().execute(async (tx) => {
        await advanceInstruction(tx, key, 'settled', now);
        await new Promise((r) => setTimeout(r, 50));
      }),
      advanceInstruction(db, key, 'accepted', now),
    ]);
    expect(await statusOf(key.payoutId)).toBe('settled');
  });
});
