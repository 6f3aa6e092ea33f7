/** The rail registry's core side (docs/rails.md "The seam"): the adapter of a payout by environment and rail. Names no rail. */
import type { Config } from '../../config';
import type { Environment } from '../../db/schema';
import type { ConfiguredRail, RailAdapter, RailCarriageProblem, RailHealth, RailModule } from '../../rails/adapter';
import { RAIL_MODULES, railModuleOf, railsServedBy } from '../../rails/registry';
import type { Core } from '../context';
import { railHost } from './host';

export interface LiveRailConnection {
  module: RailModule;
  /** The module's `rail` (rail_instructions.rail, rail_events.rail, pollers, health). */
  id: string;
  /** Catalog rails it serves. */
  serves: readonly string[];
  configured: ConfiguredRail;
}

const connectionsByConfig = new WeakMap<object, LiveRailConnection[]>();

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

export function liveRailConnection(core: Core, rail: string): LiveRailConnection | undefined {
  return liveRailConnections(core.config).find((c) => c.id === rail || c.serves.includes(rail));
}

/** Null when that rail has no live connection configured. */
export function railAdapterFor(core: Core, environment: Environment, rail: string): RailAdapter | null {
  if (environment === 'sandbox') return core.sandbox.railAdapter(core.config);
  const c = liveRailConnection(core, rail);
  return c ? c.configured.adapter(railHost(core, c.id)) : null;
}

export function configuredLiveRails(core: Core): Array<{ rail: string; pollIntervalMs: number }> {
  return liveRailConnections(core.config).map((c) => ({ rail: c.id, pollIntervalMs: c.configured.pollIntervalMs }));
}

export function liveServedRails(core: Core): string[] {
  return liveRailConnections(core.config).flatMap((c) => [...c.serves]);
}

const healthByConfig = new WeakMap<object, Map<string, { health: RailHealth; checkedAt: number }>>();
const checking = new WeakMap<object, Promise<Record<string, RailHealth>>>();

export const RAIL_HEALTH_TTL_MS = 30_000;
/** Retries, RAIL_HEALTH_RETRY_MS apart, before a failed check counts the rail as failing. */
export const RAIL_HEALTH_RETRIES = 2;
export const RAIL_HEALTH_RETRY_MS = 1_000;

/** Checks every configured live connection now and remembers the result, by connection id. Never throws. */
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
    for (let retry = 0; health === 'failing' && retry < RAIL_HEALTH_RETRIES; retry++) {
      await new Promise((r) => setTimeout(r, RAIL_HEALTH_RETRY_MS));
      health = await adapter.health().catch((): RailHealth => 'failing');
    }
    known.set(c.id, { health, checkedAt: Date.now() });
    out[c.id] = health;
  }
  return out;
}

/** A check older than {@link RAIL_HEALTH_TTL_MS} starts a new one and answers from the last; never checked: false. */
export function liveRailWorking(core: Core, rail: string): boolean {
  const c = liveRailConnection(core, rail);
  if (!c) return false;
  const entry = healthByConfig.get(core.config)?.get(c.id);
  if (!entry || Date.now() - entry.checkedAt > RAIL_HEALTH_TTL_MS) void refreshRailHealth(core);
  return entry?.health === 'working';
}

/** The recipient field or `reference` a live payout cannot carry, and why (docs/rails.md "Names and texts"); null when it can. */
export function railCarriageProblem(rail: string, details: Record<string, unknown>, reference: string | null, channel = ''): RailCarriageProblem | null {
  return railModuleOf(rail)?.carriageProblem?.(details, reference, channel) ?? null;
}

export function railLatestArrival(core: Core, rail: string, now: Date): { latestArrival?: Date } {
  const at = liveRailConnection(core, rail)?.configured.latestArrival?.(now);
  return at ? { latestArrival: at } : {};
}

/** Null when no configured live rail issues details for `currency`; each call draws new ones (the caller retries on a collision). */
export function liveVirtualAccountIssuer(core: Core, currency: string): ((beneficiaryName: string) => Record<string, string>) | null {
  const c = liveRailConnections(core.config).find((x) => x.configured.virtualAccounts?.currency === currency);
  return c ? c.configured.virtualAccounts!.issue : null;
}
