/**
 * Channels paused at runtime (docs/operations.md "Pausing a channel"): this module owns the writes
 * of channel_pauses. An operator pauses or resumes a channel with `npm run admin -- channel pause
 * <id>` / `channel resume <id>`; every API and worker process reads the table, at most
 * {@link CHANNEL_PAUSES_TTL_MS} old, so the change reaches every process within seconds without a
 * restart. PAUSED_CHANNELS (config) stays the start-up default: a channel it names is paused
 * whatever the table says.
 */
import type { Db } from '../db/schema';
import { findChannel } from '../domain/channels';
import type { Core } from './context';
import { type AuditInput, operatorActor, recordAuditEvent } from './audit';

/** How old the paused set a process answers from may be, in ms. */
export const CHANNEL_PAUSES_TTL_MS = 2000;

const cache = new WeakMap<object, { ids: ReadonlySet<string>; readAt: number; reading: Promise<ReadonlySet<string>> | null }>();

/** Reads the table now and remembers the result for this process's database. */
export async function refreshChannelPauses(core: Pick<Core, 'db'>): Promise<ReadonlySet<string>> {
  let entry = cache.get(core.db);
  if (!entry) cache.set(core.db, (entry = { ids: new Set(), readAt: 0, reading: null }));
  const e = entry;
  e.reading ??= core.db
    .selectFrom('channel_pauses')
    .select('channel')
    .execute()
    .then((rows) => {
      e.ids = new Set(rows.map((r) => r.channel));
      e.readAt = Date.now();
      return e.ids;
    })
    .finally(() => {
      e.reading = null;
    });
  return e.reading;
}

/**
 * The channels paused now for this process: PAUSED_CHANNELS and the table as last read. A read
 * older than {@link CHANNEL_PAUSES_TTL_MS} starts a new one in the background (use
 * {@link freshPausedChannels} where the answer must be current, as when accepting a payout).
 */
export function pausedChannels(core: Pick<Core, 'db' | 'config'>): ReadonlySet<string> {
  const entry = cache.get(core.db);
  if (!entry || Date.now() - entry.readAt > CHANNEL_PAUSES_TTL_MS) void refreshChannelPauses(core).catch(() => undefined);
  if (!entry || entry.ids.size === 0) return core.config.pausedChannels;
  return new Set([...core.config.pausedChannels, ...entry.ids]);
}

/** {@link pausedChannels}, after reading the table when the last read is older than the TTL. */
export async function freshPausedChannels(core: Pick<Core, 'db' | 'config'>): Promise<ReadonlySet<string>> {
  const entry = cache.get(core.db);
  if (!entry || Date.now() - entry.readAt > CHANNEL_PAUSES_TTL_MS) await refreshChannelPauses(core);
  return pausedChannels(core);
}

/** A runtime pause, as the admin command prints it. */
export interface ChannelPause {
  channel: string;
  reason: string | null;
  paused_by: string;
  paused_at: string;
}

/**
 * Pauses `channel` (idempotent: a second pause keeps the first one's time and reason) and records
 * `channel.paused` in the platform audit chain (src/core/audit.ts) with `audit`'s actor and source
 * (default: the operator running this process) when it was not paused. Throws Error for an unknown
 * channel id.
 */
export async function pauseChannel(
  db: Db,
  channel: string,
  opts: { reason?: string | null; operator: string; audit?: Pick<AuditInput, 'actor' | 'source'> },
): Promise<ChannelPause> {
  if (!findChannel(channel)) throw new Error(`unknown channel ${channel}`);
  return db.transaction().execute(async (tx) => {
    const inserted = await tx
      .insertInto('channel_pauses')
      .values({ channel, reason: opts.reason ?? null, paused_by: opts.operator, paused_at: new Date() })
      .onConflict((oc) => oc.column('channel').doNothing())
      .returning('channel')
      .executeTakeFirst();
    const row = await tx.selectFrom('channel_pauses').selectAll().where('channel', '=', channel).executeTakeFirstOrThrow();
    const pause = { ...row, paused_at: row.paused_at.toISOString() };
    if (inserted) {
      await recordAuditEvent(tx, { businessId: null, environment: null, ...(opts.audit ?? operatorActor()), action: 'channel.paused', objectType: 'channel', objectId: channel, before: { paused: false }, after: { paused: true, ...pause } });
    }
    return pause;
  });
}

/**
 * Resumes `channel`; returns whether it was paused at runtime (a PAUSED_CHANNELS pause stays until
 * restart without it). A resume that changed something is recorded as `channel.resumed` (platform
 * audit chain) with `audit`'s actor and source (default: the operator running this process).
 */
export async function resumeChannel(db: Db, channel: string, audit?: Pick<AuditInput, 'actor' | 'source'>): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const r = await tx.deleteFrom('channel_pauses').where('channel', '=', channel).returningAll().executeTakeFirst();
    if (r) {
      await recordAuditEvent(tx, { businessId: null, environment: null, ...(audit ?? operatorActor()), action: 'channel.resumed', objectType: 'channel', objectId: channel, before: { paused: true, ...r, paused_at: r.paused_at.toISOString() }, after: { paused: false } });
    }
    return !!r;
  });
}

/** Every runtime pause, by channel id. */
export async function listChannelPauses(db: Db): Promise<ChannelPause[]> {
  const rows = await db.selectFrom('channel_pauses').selectAll().orderBy('channel').execute();
  return rows.map((r) => ({ ...r, paused_at: r.paused_at.toISOString() }));
}
