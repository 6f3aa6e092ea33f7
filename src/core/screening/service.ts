/** The screening service (docs/screening.md "Outcomes", "Fail closed"): in-memory matching, every screening recorded, `unavailable` on a stale list. */
import type { Logger } from 'pino';
import type { DbOrTx } from '../../db/schema';
import type { EntryKind } from '../../screening/entry';
import { type ScreeningConfig, screeningConfig } from '../../screening/index';
import { type ListIndex, type MatchHit, type ScreeningSubject, buildIndex, matchSubject } from '../../screening/match';
import { type ListVersion, type ReadOptions, type RefreshResult, currentListVersions, listVersionEntries, refreshList } from './lists';
import { screeningAvailable, screeningListRefreshFailures, screeningsTotal, watchScreeningLists } from './metrics';
import { recordScreening } from './screenings';

export type { ScreeningSubject } from '../../screening/match';

/** A list version a screening used. */
export interface ListVersionRef {
  list: string;
  versionId: string;
  sha256: string;
  publishedAt: Date | null;
  checkedAt: Date;
}

/** One hit as the service returns it: the matched list entry, its scores and why. */
export interface ScreeningHit {
  list: string;
  versionId: string;
  entryId: string;
  entryKind: EntryKind;
  /** The entry's primary name and the name that matched. */
  entryName: string;
  matchedName: string;
  programs: string[];
  nameScore: number;
  score: number;
  disambiguators: MatchHit['disambiguators'];
  confirmed: boolean;
  reason: string;
}

/** What a screening answered; what each outcome means for the caller: docs/screening.md "Outcomes". */
export type ScreeningResult =
  | { screeningId: string; outcome: 'clear' | 'potential_match' | 'confirmed_match'; hits: ScreeningHit[]; listVersions: ListVersionRef[] }
  | { screeningId: string; outcome: 'unavailable'; reasons: string[]; hits: []; listVersions: ListVersionRef[] };

/** One configured list's freshness (the channel status and the metrics read it). */
export interface ListStatus {
  list: string;
  versionId: string | null;
  checkedAt: Date | null;
  ageSeconds: number | null;
  maxAgeHours: number;
  /** Missing or older than its maximum age. */
  stale: boolean;
  lastError: string | null;
}

/** The fail-closed status: available only when every configured list is loaded and within its maximum age. */
export interface ScreeningStatus {
  available: boolean;
  reasons: string[];
  lists: ListStatus[];
}

/** One tick of {@link ScreeningService.start}: the lists whose version changed, and whether screening is (newly) available. */
export interface SyncReport {
  reloaded: string[];
  available: boolean;
  becameAvailable: boolean;
}

/** See the module comment. One per process; `now` is injectable for tests. */
export class ScreeningService {
  private readonly loaded = new Map<string, { version: ListVersion; index: Promise<ListIndex> | null }>();
  private readonly errors = new Map<string, string>();
  private readonly lastRefresh = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: DbOrTx,
    readonly config: ScreeningConfig,
    private readonly opts: { now?: () => Date; logger?: Logger; environment?: 'live' | 'sandbox' } = {},
  ) {
    watchScreeningLists(() => this.status().lists.map((l) => ({ list: l.list, ageSeconds: l.ageSeconds })));
  }

  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  /** Reads the current versions (one indexed query); returns the lists whose version changed. Entries load at first use ({@link warm}, {@link screen}). */
  async sync(): Promise<string[]> {
    const current = await currentListVersions(this.db, this.config.lists.map((l) => l.module.id));
    const reloaded: string[] = [];
    for (const v of current) {
      const had = this.loaded.get(v.list);
      if (had && had.version.id === v.id) {
        had.version = v; // checked_at moves on a confirming fetch
        continue;
      }
      this.loaded.set(v.list, { version: v, index: null });
      reloaded.push(v.list);
    }
    return reloaded;
  }

  /** The in-memory index of a loaded list, built from its entries (one query) at first use. */
  private index(list: string): Promise<ListIndex> {
    const l = this.loaded.get(list)!;
    const v = l.version;
    if (!l.index) {
      l.index = listVersionEntries(this.db, v.id).then((entries) => buildIndex(v.list, v.id, entries));
      l.index.catch(() => (l.index = null)); // a failed read is tried again at the next use
    }
    return l.index;
  }

  /** Builds the index of every loaded list (or of `lists`) now (docs/screening.md "Loading into memory"). */
  async warm(lists: readonly string[] = [...this.loaded.keys()]): Promise<void> {
    await Promise.all(lists.filter((list) => this.loaded.has(list)).map((list) => this.index(list)));
  }

  private async fetchDue(opts: ReadOptions & { force?: boolean; builtInOnly?: boolean }): Promise<RefreshResult[]> {
    const results: RefreshResult[] = [];
    const now = this.now();
    for (const { module, source } of this.config.lists) {
      if (opts.builtInOnly && module.files.length > 0) continue;
      const last = this.lastRefresh.get(module.id);
      if (!opts.force && last !== undefined && now.getTime() - last < source.refreshMinutes * 60_000) continue;
      this.lastRefresh.set(module.id, now.getTime());
      const r = await refreshList(this.db, module, source, { ...opts, now });
      if (r.ok) this.errors.delete(module.id);
      else {
        this.errors.set(module.id, r.error);
        screeningListRefreshFailures.inc({ list: module.id });
        this.opts.logger?.warn({ list: module.id, err: r.error }, 'sanctions list refresh failed; the last good version stays current');
      }
      results.push(r);
    }
    return results;
  }

  /** Fetches the lists whose refresh interval passed (all with `force`) and syncs; a failure keeps the last good version. */
  async refresh(opts: ReadOptions & { force?: boolean } = {}): Promise<RefreshResult[]> {
    const results = await this.fetchDue(opts);
    await this.sync();
    return results;
  }

  /**
   * The refresh loop (docs/screening.md "Versions and refresh"), every `everyMs` (default 30 s) until
   * {@link stop}: with `fetch`, fetches the due lists (one process kind does); always stores the
   * built-in lists (idempotent) and syncs; `warm` indexes changed downloaded lists at once; `onSync` gets each
   * tick's report. Screening never waits for it; the timer does not hold the process open.
   */
  start(opts: { fetch: boolean; everyMs?: number; warm?: boolean; onSync?: (report: SyncReport) => Promise<void> | void }): void {
    let wasAvailable = false;
    let first = true;
    const tick = async () => {
      if (opts.fetch) await this.fetchDue({});
      else if (first) await this.fetchDue({ builtInOnly: true });
      first = false;
      const reloaded = await this.sync();
      // Downloaded lists only: the built-in list is tiny, indexed at its first screening.
      if (opts.warm) await this.warm(reloaded.filter((id) => this.config.lists.some((l) => l.module.id === id && l.module.files.length > 0)));
      const available = this.status().available;
      screeningAvailable.set({ environment: this.opts.environment ?? 'live' }, available ? 1 : 0);
      const report = { reloaded, available, becameAvailable: available && !wasAvailable };
      if (!available && (wasAvailable || reloaded.length > 0 || this.errors.size > 0)) {
        this.opts.logger?.error({ environment: this.opts.environment, reasons: this.status().reasons }, 'sanctions screening unavailable: payouts wait (docs/operations.md "Screening unavailable")');
      }
      wasAvailable = available;
      await opts.onSync?.(report);
    };
    const loop = () =>
      tick()
        .catch((err: Error) => this.opts.logger?.error({ err: err.message }, 'screening refresh loop failed'))
        .finally(() => {
          if (this.timer) this.timer = setTimeout(loop, opts.everyMs ?? 30_000).unref();
        });
    this.timer = setTimeout(loop, 0).unref();
  }

  /** Stops the loop of {@link start}. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The fail-closed status of the configured lists, from memory. */
  status(): ScreeningStatus {
    const now = this.now().getTime();
    const lists = this.config.lists.map(({ module, source }): ListStatus => {
      const l = this.loaded.get(module.id);
      const ageSeconds = l ? Math.max(0, (now - l.version.checkedAt.getTime()) / 1000) : null;
      return {
        list: module.id,
        versionId: l?.version.id ?? null,
        checkedAt: l?.version.checkedAt ?? null,
        ageSeconds,
        maxAgeHours: source.maxAgeHours,
        stale: ageSeconds === null || ageSeconds > source.maxAgeHours * 3600,
        lastError: this.errors.get(module.id) ?? null,
      };
    });
    const reasons = lists.flatMap((l) =>
      l.versionId === null
        ? [`list ${l.list} has never been loaded${l.lastError ? ` (${l.lastError})` : ''}`]
        : l.stale
          ? [`list ${l.list} was last fetched ${Math.round(l.ageSeconds! / 3600)} h ago, beyond its maximum age of ${l.maxAgeHours} h${l.lastError ? ` (${l.lastError})` : ''}`]
          : [],
    );
    if (lists.length === 0) reasons.push('no sanctions list is configured (SCREENING_LISTS)');
    return { available: reasons.length === 0, reasons, lists };
  }

  /** The list versions in memory now. */
  versions(): ListVersionRef[] {
    return [...this.loaded.values()].map(({ version: v }) => ({
      list: v.list, versionId: v.id, sha256: v.sha256, publishedAt: v.publishedAt, checkedAt: v.checkedAt,
    }));
  }

  /** Screens in memory and records the screening (one insert, in `db` when given); hits are the best `limit` (default 10) at or above the minimum score. */
  async screen(subject: ScreeningSubject, opts: { reference?: string; limit?: number; db?: DbOrTx } = {}): Promise<ScreeningResult> {
    const status = this.status();
    const listVersions = this.versions();
    const refs = listVersions.map((v) => ({ list: v.list, versionId: v.versionId }));
    const base = { subjectKind: subject.kind ?? 'unknown', subjectName: subject.name, listVersions: refs, reference: opts.reference ?? null, screenedAt: this.now() };
    if (!status.available) {
      const screeningId = await recordScreening(opts.db ?? this.db, { ...base, outcome: 'unavailable', hits: [] });
      screeningsTotal.inc({ outcome: 'unavailable' });
      return { screeningId, outcome: 'unavailable', reasons: status.reasons, hits: [], listVersions };
    }
    const indexes = await Promise.all(this.config.lists.map(({ module }) => this.index(module.id)));
    const hits = indexes
      .flatMap((index) => matchSubject(index, subject, this.config.minScore))
      .sort((a, b) => b.score - a.score)
      .slice(0, opts.limit ?? 10)
      .map(
        (h): ScreeningHit => ({
          list: h.list,
          versionId: h.versionId,
          entryId: h.entry.id,
          entryKind: h.entry.kind,
          entryName: h.entry.names[0]?.name ?? h.matchedName,
          matchedName: h.matchedName,
          programs: h.entry.programs,
          nameScore: h.nameScore,
          score: h.score,
          disambiguators: h.disambiguators,
          confirmed: h.confirmed,
          reason: h.reason,
        }),
      );
    const outcome = hits.length === 0 ? 'clear' : hits.some((h) => h.confirmed) ? 'confirmed_match' : 'potential_match';
    const screeningId = await recordScreening(opts.db ?? this.db, { ...base, outcome, hits: hits.map((h) => ({ ...h })) });
    screeningsTotal.inc({ outcome });
    return { screeningId, outcome, hits, listVersions };
  }
}

/** The two screening services of a process (docs/screening.md "Where screening runs"): live against `SCREENING_LISTS`, sandbox against the built-in sandbox list. */
export interface ScreeningServices {
  live: ScreeningService;
  sandbox: ScreeningService;
}

/** Builds both services from the configuration (not started: the worker starts their refresh loops). */
export function createScreeningServices(db: DbOrTx, config: Record<string, unknown>, logger?: Logger): ScreeningServices {
  return {
    live: new ScreeningService(db, screeningConfig(config), { logger, environment: 'live' }),
    sandbox: new ScreeningService(db, screeningConfig({ ...config, SCREENING_LISTS: 'sandbox' }), { logger, environment: 'sandbox' }),
  };
}
