/**
 * Channels paused at runtime (docs/operations.md "Pausing a channel"); owns channel_pauses. Every
 * process reads the table at most {@link CHANNEL_PAUSES_TTL_MS} old; PAUSED_CHANNELS pauses regardless.
 */
import type { Db } from '../db/schema';
import { findChannel } from '../domain/channels';
import type { Core } from './context';
import { type AuditInput, operatorActor, recordAuditEvent } from './audit';

export const CHANNEL_PAUSES_TTL_MS = 2000;

const cache = new WeakMap<object, { ids: ReadonlySet<string>; readAt: number; reading: Promise<ReadonlySet<string>> | null }>();

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

/** The channels paused now (may be up to the TTL old; use {@link freshPausedChannels} where it must be current). */
export function pausedChannels(core: Pick<Core, 'db' | 'config'>): ReadonlySet<string> {
  const entry = cache.get(core.db);
  if (!entry || Date.now() - entry.readAt > CHANNEL_PAUSES_TTL_MS) void refreshChannelPauses(core).catch(() => undefined);
  if (!entry || entry.ids.size === 0) return core.config.pausedChannels;
  return new Set([...core.config.pausedChannels, ...entry.ids]);
}

export async function freshPausedChannels(core: Pick<Core, 'db' | 'config'>): Promise<ReadonlySet<string>> {
  const entry = cache.get(core.db);
  if (!entry || Date.now() - entry.readAt > CHANNEL_PAUSES_TTL_MS) await refreshChannelPauses(core);
  return pausedChannels(core);
}

/** A runtime pause of a catalog channel: who paused it (operator user name), when, and why. */
export interface ChannelPause {
  channel: string;
  reason: string | null;
  pausedBy: string;
  pausedAt: Date;
}

type PauseRow = { channel: string; reason: string | null; paused_by: string; paused_at: Date };

const toChannelPause = (r: PauseRow): ChannelPause => ({ channel: r.channel, reason: r.reason, pausedBy: r.paused_by, pausedAt: new Date(r.paused_at) });

const auditSnapshot = (r: PauseRow) => ({ ...r, paused_at: new Date(r.paused_at).toISOString() });

/** Pauses `channel` idempotently, audited as `channel.paused` (platform chain). Throws Error for an unknown channel. */
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
    if (inserted) {
      await recordAuditEvent(tx, { businessId: null, environment: null, ...(opts.audit ?? operatorActor()), action: 'channel.paused', objectType: 'channel', objectId: channel, before: { paused: false }, after: { paused: true, ...auditSnapshot(row) } });
    }
    return toChannelPause(row);
  });
}

/** Resumes a runtime pause (audited `channel.resumed`); whether it was paused at runtime. */
export async function resumeChannel(db: Db, channel: string, audit?: Pick<AuditInput, 'actor' | 'source'>): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const r = await tx.deleteFrom('channel_pauses').where('channel', '=', channel).returningAll().executeTakeFirst();
    if (r) {
      await recordAuditEvent(tx, { businessId: null, environment: null, ...(audit ?? operatorActor()), action: 'channel.resumed', objectType: 'channel', objectId: channel, before: { paused: true, ...auditSnapshot(r) }, after: { paused: false } });
    }
    return !!r;
  });
}

/** Every runtime pause, by channel id. */
export async function listChannelPauses(db: Db): Promise<ChannelPause[]> {
  const rows = await db.selectFrom('channel_pauses').selectAll().orderBy('channel').execute();
  return rows.map(toChannelPause);
}
