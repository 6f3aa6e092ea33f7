/**
 * The rail registry (docs/rails.md "The seam"): one question, "which adapter moves this payout?",
 * answered by environment and rail. The sandbox simulator serves every rail of the sandbox; in
 * live, a rail has an adapter only when its connection is configured (sepa_credit_transfer: ISO
 * 20022 files over SFTP; ach: NACHA files over SFTP), and its channels are `live` only while that connection works.
 */
import { composeIBAN, countrySpecs } from 'ibantools';
import type { Environment } from '../../db/schema';
import { randomDigits } from '../../domain/ids';
import type { RailAdapter, RailHealth } from '../../rails/adapter';
import { sandboxRailAdapter } from '../../rails/sandbox';
import { sepaCarriageProblem, sepaRailAdapter } from '../../rails/sepa/adapter';
import { SEPA_RAIL, sepaRailConfig } from '../../rails/sepa/config';
import { sepaLatestArrival } from '../../rails/target2';
import { achCarriageProblem, achRailAdapter } from '../../rails/ach/adapter';
import { ACH_RAIL, achRailConfig } from '../../rails/ach/config';
import { achEffectiveDate } from '../../rails/fed-calendar';
import { achSettlesAt } from './ach';
import type { Core } from '../context';
import { queueAchInstruction, queueInstruction } from './instructions';
import { ensureRailWindow } from './windows';

/** The adapter of `rail` in `environment`, or null when that rail has no live connection configured. */
export function railAdapterFor(core: Core, environment: Environment, rail: string): RailAdapter | null {
  if (environment === 'sandbox') return sandboxRailAdapter({ sandboxArrival: core.config.SANDBOX_ARRIVAL });
  if (rail === ACH_RAIL) {
    const ach = achRailConfig(core.config).config;
    if (!ach) return null;
    return achRailAdapter(ach, {
      enqueue: async (entry) => {
        const refs = await queueAchInstruction(core, ACH_RAIL, entry, ach.odfiRouting);
        await ensureRailWindow(core, ACH_RAIL, ach.batchWindowMs);
        return refs;
      },
    });
  }
  if (rail !== SEPA_RAIL) return null;
  const sepa = sepaRailConfig(core.config).config;
  if (!sepa) return null;
  return sepaRailAdapter(sepa, {
    enqueue: async (transfer) => {
      const refs = await queueInstruction(core, SEPA_RAIL, transfer);
      await ensureRailWindow(core, SEPA_RAIL, sepa.batchWindowMs);
      return refs;
    },
  });
}

/** The live rails whose connection is configured, with their inbox poll interval in ms (the worker starts their pollers). */
export function configuredLiveRails(core: Core): Array<{ rail: string; pollIntervalMs: number }> {
  const out: Array<{ rail: string; pollIntervalMs: number }> = [];
  const sepa = sepaRailConfig(core.config).config;
  if (sepa) out.push({ rail: SEPA_RAIL, pollIntervalMs: sepa.pollIntervalMs });
  const ach = achRailConfig(core.config).config;
  if (ach) out.push({ rail: ACH_RAIL, pollIntervalMs: ach.pollIntervalMs });
  return out;
}

/** Last known health of each live rail, per process configuration, and the check under way. */
const healthByConfig = new WeakMap<object, Map<string, { health: RailHealth; checkedAt: number }>>();
const checking = new WeakMap<object, Promise<Record<string, RailHealth>>>();

/** How long a health check is trusted before the next one is started, in ms. */
export const RAIL_HEALTH_TTL_MS = 30_000;
/** A failed connection check is asked again this many times, RAIL_HEALTH_RETRY_MS apart, before the rail counts as failing. */
export const RAIL_HEALTH_RETRIES = 2;
export const RAIL_HEALTH_RETRY_MS = 1_000;

/**
 * Checks every configured live rail's connection now (SFTP: connect and stat; a failure is asked
 * again up to RAIL_HEALTH_RETRIES times, 1 s apart) and remembers the result. Returns it by rail.
 * Never throws.
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
  for (const { rail } of configuredLiveRails(core)) {
    const adapter = railAdapterFor(core, 'live', rail);
    let health: RailHealth = adapter ? await adapter.health().catch((): RailHealth => 'failing') : 'not_configured';
    // A connection that fails once (a cut session, a server restarting) is asked again before its
    // channels are paused for a whole TTL: found by `npm run chaos`, where one failed check refused
    // live payouts with channel_unavailable for 30 s.
    for (let retry = 0; adapter && health === 'failing' && retry < RAIL_HEALTH_RETRIES; retry++) {
      await new Promise((r) => setTimeout(r, RAIL_HEALTH_RETRY_MS));
      health = await adapter.health().catch((): RailHealth => 'failing');
    }
    known.set(rail, { health, checkedAt: Date.now() });
    out[rail] = health;
  }
  return out;
}

/**
 * Whether `rail` can move live money now: configured, and its last connection check worked. A
 * stale check (older than {@link RAIL_HEALTH_TTL_MS}) starts a new one in the background and
 * answers from the last result; a rail never checked answers false until its first check ends.
 */
export function liveRailWorking(core: Core, rail: string): boolean {
  if (!configuredLiveRails(core).some((r) => r.rail === rail)) return false;
  const entry = healthByConfig.get(core.config)?.get(rail);
  if (!entry || Date.now() - entry.checkedAt > RAIL_HEALTH_TTL_MS) void refreshRailHealth(core);
  return entry?.health === 'working';
}

/**
 * What a live payout's rail file could not carry (docs/rails.md "Names and texts"): for the SEPA
 * rail, an invalid IBAN or BIC, or a holder name or reference outside the SEPA character set after
 * transliteration; for ACH, a routing number failing its ABA check digit, an account number or
 * type a NACHA entry cannot hold, or a name with nothing left after conversion. Returns the recipient field (`holder_name`, `iban`, `bic`) or `reference`, and
 * why; null when it can be carried (or the rail has no such limits).
 */
export function railCarriageProblem(rail: string, details: Record<string, unknown>, reference: string | null): { field: string; message: string } | null {
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  if (rail === ACH_RAIL) {
    return achCarriageProblem({ name: str(details.holder_name) ?? '', routingNumber: str(details.routing_number), accountNumber: str(details.account_number), accountType: str(details.account_type) });
  }
  if (rail !== SEPA_RAIL) return null;
  return sepaCarriageProblem({ name: str(details.holder_name) ?? '', iban: str(details.iban), bic: str(details.bic), remittance: reference });
}

/**
 * The latest arrival of a live payout accepted at `now` on `rail` when the rail's calendar sets it
 * (SEPA: the business day after the execution date, after cut-off and TARGET2 closing days; ACH:
 * the settlement of the effective entry date of the window it leaves in, after Fed holidays);
 * empty when the rail has no calendar configured.
 */
export function railLatestArrival(core: Core, rail: string, now: Date): { latestArrival?: Date } {
  if (rail === ACH_RAIL) {
    const ach = achRailConfig(core.config).config;
    if (!ach) return {};
    // The next window's effective date (a payout queued now leaves in the current window's file).
    const at = new Date(now.getTime() + ach.batchWindowMs);
    return { latestArrival: achSettlesAt(ach, achEffectiveDate(at, { sameDayCutOff: ach.sameDayCutOff, timeZone: ach.timeZone }).effectiveDate, at) };
  }
  if (rail !== SEPA_RAIL) return {};
  const sepa = sepaRailConfig(core.config).config;
  return sepa ? { latestArrival: sepaLatestArrival(now, sepa.cutOff, sepa.timeZone) } : {};
}

/**
 * The issuer of live virtual account details for `currency`, or null when no live bank assigns
 * them (EUR, from RAIL_SEPA_VIRTUAL_IBAN_RANGE with the SEPA rail configured; USD, 12-digit
 * account numbers from RAIL_ACH_VIRTUAL_ACCOUNT_RANGE with the ACH rail configured). Each EUR call
 * draws a new IBAN in the range (the BBAN's fixed leading characters, then random digits; check
 * digits computed by ibantools); the caller retries on a collision.
 */
export function liveVirtualAccountIssuer(core: Core, currency: string): ((beneficiaryName: string) => Record<string, string>) | null {
  if (currency === 'USD') {
    const ach = achRailConfig(core.config).config;
    const range = ach?.virtualAccountRange;
    if (!ach || !range) return null;
    return (beneficiaryName) => ({
      account_number: `${range.accountPrefix}${randomDigits(Math.max(0, 12 - range.accountPrefix.length))}`.slice(0, 12),
      routing_number: range.routingNumber,
      account_type: 'checking',
      bank_name: ach.odfiName,
      beneficiary_name: beneficiaryName,
    });
  }
  if (currency !== 'EUR') return null;
  const sepa = sepaRailConfig(core.config).config;
  const range = sepa?.virtualIbanRange;
  if (!sepa || !range) return null;
  const length = countrySpecs[range.country]?.chars;
  if (!length) return null;
  const bbanLength = length - 4;
  return (beneficiaryName) => {
    const bban = `${range.bbanPrefix}${randomDigits(Math.max(0, bbanLength - range.bbanPrefix.length))}`.slice(0, bbanLength);
    const iban = composeIBAN({ countryCode: range.country, bban });
    if (!iban) throw new Error(`RAIL_SEPA_VIRTUAL_IBAN_RANGE ${range.country}:${range.bbanPrefix} does not give valid ${range.country} IBANs`);
    return { iban, bic: sepa.debtor.bic, bank_name: sepa.bankName, beneficiary_name: beneficiaryName };
  };
}
