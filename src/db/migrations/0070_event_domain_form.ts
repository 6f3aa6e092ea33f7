import type { Kysely } from 'kysely';
import { domainFormOfLegacyEvent } from '../../wire/legacy-events';

/** Rewrites `surface_a` events into the domain form where every surface keeps its bytes; logs how many stay (docs/webhooks.md "Event data"). */
export async function up(db: Kysely<any>): Promise<void> {
  let after = '';
  let rewritten = 0;
  let kept = 0;
  for (;;) {
    const rows: { id: string; type: string; created_at: Date | string; data: unknown }[] = await db
      .selectFrom('events')
      .select(['id', 'type', 'created_at', 'data'])
      .where('data_format', '=', 'surface_a')
      .where('id', '>', after)
      .orderBy('id')
      .limit(500)
      .execute();
    if (rows.length === 0) break;
    for (const r of rows) {
      const data = (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as Record<string, unknown>;
      const domain = domainFormOfLegacyEvent({ id: r.id, type: r.type, createdAt: new Date(r.created_at), data });
      if (!domain) {
        kept++;
        continue;
      }
      await db.updateTable('events').set({ data: JSON.stringify(domain), data_format: 'domain' }).where('id', '=', r.id).where('data_format', '=', 'surface_a').execute();
      rewritten++;
    }
    after = rows[rows.length - 1].id;
  }
  if (rewritten + kept > 0) console.warn(`migration 0070_event_domain_form: ${rewritten} events rewritten to the domain form, ${kept} kept in the surface_a form (legacy reader)`);
}

/** Nothing to undo: a domain row is read by every version since 0066. */
export async function down(): Promise<void> {}
