/** Webhooks of partner rails (docs/rails.md "Payout partner"): `POST /hooks/partner/<rail>`. Names no rail. */
import type { RailWebhookResult } from '../../rails/adapter';
import type { Core } from '../context';
import { railHost } from './host';
import { dispatchRailEvents } from './inbox';
import { liveRailConnection } from './rail-adapters';

/** Headers lower-case, the raw body; null when no configured connection `rail` takes webhooks (404). */
export async function receiveRailWebhook(core: Core, rail: string, headers: Record<string, string | undefined>, body: string): Promise<RailWebhookResult | null> {
  const c = liveRailConnection(core, rail);
  if (!c || c.id !== rail || !c.configured.receiveWebhook) return null;
  const result = await c.configured.receiveWebhook(railHost(core, c.id), { headers, body });
  if (result.outcome === 'refused') {
    core.log.warn({ rail, status: result.status, code: result.code, deliveryId: headers['x-delivery-id'] }, 'partner webhook refused');
    return result;
  }
  if (result.recorded > 0) await dispatchRailEvents(core, c.id).catch((err: unknown) => core.log.warn({ err, rail }, 'partner webhook recorded; dispatch left for the next poll'));
  return result;
}
