/**
 * The rail registry's core side (docs/rails.md "The seam"): one question, "which adapter moves
 * this payout?", answered by environment and rail. The sandbox simulator serves every rail of the
 * sandbox; in live, a rail has an adapter only when the module that serves it (src/rails/registry.ts)
 * has its connection configured, and its channels are `live` only while that connection works.
 * Names no rail: everything rail-specific is the module's.
 */
import type { Config } from '../../config';
import type { Environment } from '../../db/schema';
import type { ConfiguredRail, RailAdapter, RailCarriageProblem, RailHealth, RailModule } from '../../rails/adapter';
import { RAIL_MODULES, railModuleOf, railsServedBy } from '../../rails/registry';
import { sandboxRailAdapter } from '../../sandbox/rail-adapter';
import type { Core } from '../context';
import { railHost } from './host';

/** A module with its configuration read. */
export interface LiveRailConnection {
  module: RailModule;
  /** The connection id: the module's `rail` (rail_instructions.rail, rail_events.rail, pollers, health). */
  id: string;
  /** Catalog rails it serves. */
  serves: readonly string[];
  configured: ConfiguredRail;
}

const connectionsByConfig = new WeakMap<object, LiveRailConnection[]>();

/** Every configured live rail connection of this process (read once per configuration). */
export function liveRailConnections(config: Config): LiveRailConnection[] {
  let known = connectionsByConfig.get(config);
  if (!known) {
    known = [];
    for (const module of RAIL_MODULES) {
      const r = module.connect(config);
      if (r.rail) known.push({ module, id: module.rail, serves: railsServedBy(module), configured: r.rail });
    }
    connectionsByConfig.set(config, known);
  }
  return known;
}

/** The configured connection that serves catalog rail (or connection id) `rail`, or undefined. */
export function liveRailConnection(core: Core, rail: string): LiveRailConnection | undefined {
  return liveRailConnections(core.config).find((c) => c.id === rail || c.serves.includes(rail));
}

/** The adapter of `rail` in `environment`, or null when that rail has no live connection configured. */
export function railAdapterFor(core: Core, environment: Environment, rail: string): RailAdapter | null {
  if (environment === 'sandbox') return sandboxRailAdapter({ sandboxArrival: core.config.SANDBOX_ARRIVAL });
  const c = liveRailConnection(core, rail);
  return c ? c.configured.adapter(railHost(core, c.id)) : null;
}

/** The live connections whose configuration is set, with their poll interval in ms (the worker starts their pollers). */
export function configuredLiveRails(core: Core): Array<{ rail: string; pollIntervalMs: number }> {
  return liveRailConnections(core.config).map((c) => ({ rail: c.id, pollIntervalMs: c.configured.pollIntervalMs }));
}

/** Every catalog rail a configured live connection serves (payouts on them have an adapter). */
export function liveServedRails(core: Core): string[] {
  return liveRailConnections(core.config).flatMap((c) => [...c.serves]);
}

/** Last known health of each live connection, per process configuration, and the check under way. */
const healthByConfig = new WeakMap<object, Map<string, { health: RailHealth; checkedAt: number }>>();
const checking = new WeakMap<object, Promise<Record<string, RailHealth>>>();

/** How long a health check is trusted before the next one is started, in ms. */
export const RAIL_HEALTH_TTL_MS = 30_000;
/** A failed connection check is asked again this many times, RAIL_HEALTH_RETRY_MS apart, before the rail counts as failing. */
export const RAIL_HEALTH_RETRIES = 2;
export const RAIL_HEALTH_RETRY_MS = 1_000;

/**
 * Checks every configured live connection now (its adapter's `health`: SFTP connect and stat, a
 * partner's profile call; a failure is asked again up to RAIL_HEALTH_RETRIES times, 1 s apart) and
 * remembers the result. Returns it by connection id. Never throws.
 */
export async function refreshRailHealth(core: Core): Promise<Record<string, RailHealth>> {
  const running = checking.get(core.config);
  if (running) return running;
  const check = checkRailHealth(core).finally(() => checking.delete(core.config));
  checking.set(core.config, check);
  return check;
}

async function checkRailHealth(core: Core): Promise<Record<string, RailHealth>> {
  let known = healthByConfig.get(core.config);
  if (!known) healthByConfig.set(core.config, (known = new Map()));
  const out: Record<string, RailHealth> = {};
  for (const c of liveRailConnections(core.config)) {
    const adapter = c.configured.adapter(railHost(core, c.id));
    let health: RailHealth = await adapter.health().catch((): RailHealth => 'failing');
    // A connection that fails once (a cut session, a server restarting) is asked again before its
    // channels are paused for a whole TTL: found by `npm run chaos`, where one failed check refused
    // live payouts with channel_unavailable for 30 s.
    for (let retry = 0; health === 'failing' && retry < RAIL_HEALTH_RETRIES; retry++) {
      await new Promise((r) => setTimeout(r, RAIL_HEALTH_RETRY_MS));
      health = await adapter.health().catch((): RailHealth => 'failing');
    }
    known.set(c.id, { health, checkedAt: Date.now() });
    out[c.id] = health;
  }
  return out;
}

/**
 * Whether catalog rail `rail` can move live money now: a connection serves it, and its last check
 * worked. A stale check (older than {@link RAIL_HEALTH_TTL_MS}) starts a new one in the background
 * and answers from the last result; a connection never checked answers false until its first check ends.
 */
export function liveRailWorking(core: Core, rail: string): boolean {
  const c = liveRailConnection(core, rail);
  if (!c) return false;
  const entry = healthByConfig.get(core.config)?.get(c.id);
  if (!entry || Date.now() - entry.checkedAt > RAIL_HEALTH_TTL_MS) void refreshRailHealth(core);
  return entry?.health === 'working';
}

/**
 * What a live payout to `details` with `reference` on `channel` (catalog rail `rail`) cannot carry
 * (docs/rails.md "Names and texts"), as the rail's module says: the recipient field or
 * `reference`, and why; null when it can be carried (or no module serves the rail).
 */
export function railCarriageProblem(rail: string, details: Record<string, unknown>, reference: string | null, channel = ''): RailCarriageProblem | null {
  return railModuleOf(rail)?.carriageProblem?.(details, reference, channel) ?? null;
}

/** The latest arrival of a live payout accepted at `now` on `rail` when the rail's calendar sets it; empty otherwise. */
export function railLatestArrival(core: Core, rail: string, now: Date): { latestArrival?: Date } {
  const at = liveRailConnection(core, rail)?.configured.latestArrival?.(now);
  return at ? { latestArrival: at } : {};
}

/**
 * The issuer of live virtual account details for `currency`, or null when no configured live rail
 * issues them (each call draws new details; the caller retries on a collision).
 */
export function liveVirtualAccountIssuer(core: Core, currency: string): ((beneficiaryName: string) => Record<string, string>) | null {
  const c = liveRailConnections(core.config).find((x) => x.configured.virtualAccounts?.currency === currency);
  return c ? c.configured.virtualAccounts!.issue : null;
}
